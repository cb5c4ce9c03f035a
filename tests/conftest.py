"""Shared pytest configuration.

Hypothesis runs derandomized by default, so that `make test` (and CI) is reproducible: the same
examples on every run. Exploration with fresh random examples is a separate, deliberate run:
``RPP_HYPOTHESIS_PROFILE=explore .venv/bin/python -m pytest tests/oracles`` (a random run found the
domain-edge case of tests/divergence/test_certified_returns.py, now a fixed regression test).
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("rpp", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, max_examples=500, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("RPP_HYPOTHESIS_PROFILE", "rpp"))
