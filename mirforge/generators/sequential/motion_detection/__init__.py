"""The motion_detection task: its module and its step templates side by side."""

from mirforge.generators.sequential.motion_detection.task import MotionDetection

__all__ = ["MotionDetection"]
