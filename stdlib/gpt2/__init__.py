"""GPT-2 in plain NumPy: the model (model.py), its weights (weights.py), the tokenizer (tokenizer.py) and a
generation demo (`python -m transpiler.stdlib.gpt2`). See docs/gpt2.md."""
