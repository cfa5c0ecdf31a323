"""Clients of what lies outside the project: the LLM, the embedding providers, the tokenizer.

A leaf: nothing here imports an app of the project, so every app may use it.
"""
