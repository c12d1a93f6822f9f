"""Evaluation of models on mirforge datasets: accuracy per task and category, parse failures, letter confusion,
blind (blank-image) and text-only baselines, and exports for lmms-eval and VLMEvalKit."""
