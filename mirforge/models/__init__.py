"""The model layer: vision-language backends behind one interface, one model loader, one LLM client and one cache.

- :mod:`.backend`: ``Query``, ``Sampling`` and the ``Backend`` protocol every backend follows;
- :mod:`.loader`: the one rule for a model folder (a full model, or a LoRA adapter on a local base) and its dtype;
- :mod:`.transformers_backend` and :mod:`.openai_backend`: the two backends; :mod:`.factory` picks one;
- :mod:`.llm`: the one OpenAI-compatible client (retries by the ``openai`` client itself), over :mod:`.cache`;
- :mod:`.processor`: processors without torchvision; :mod:`.tiny`: tiny random models for offline runs.

Nothing here imports the rest of mirforge beyond :mod:`mirforge.errors`; heavy libraries load on first use.
"""
