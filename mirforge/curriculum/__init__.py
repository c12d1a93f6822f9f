"""Curriculum builder: model backends, answer extraction, difficulty filter, MIR stage schedule and exports.

Heavy libraries (torch, transformers, openai) are imported only inside the backends that need them.
"""
