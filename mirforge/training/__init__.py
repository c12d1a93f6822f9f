"""Stage-wise fine-tuning of vision-language models on a mirforge curriculum (extra ``[train]``).

``mirforge train`` runs the stages of a curriculum folder in order, each from the previous stage's weights (a LoRA
adapter or the full model), with sequential sampling inside a stage, completion-only loss and the images interleaved at
their slots through the model's own processor and chat template. ``--baseline`` trains on the same instances without
the curriculum. Heavy libraries are imported only inside the functions that need them.
"""
