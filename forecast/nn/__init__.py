"""Torch modules: encoders (recurrent, orthogonal, transformer, Hopfield) and forecast heads."""
