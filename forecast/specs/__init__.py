"""Experiment specs shipped with the package (TOML data files, read with importlib.resources).

``demo.toml`` is the spec ``forecast demo`` runs (see :mod:`forecast.specs.demo`); it has the
format of ``forecast run`` specs (see :mod:`forecast.specs.spec`).
"""
