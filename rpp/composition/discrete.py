r"""Divergences between *discrete* distributions (RPP / Pufferfish leakage of finite mechanisms).

The core :func:`rpp.renyi_divergence` works with (mixtures of) Gaussians; the composition
chapter needs the Rényi divergence between probability vectors on a finite output space.
"""
from __future__ import annotations

import numpy as np

from ..divergence import discrete_renyi_divergence

__all__ = ["discrete_renyi", "pufferfish_leakage"]


# One implementation for the whole package: the core's vectorised discrete divergence.
discrete_renyi = discrete_renyi_divergence


def pufferfish_leakage(p, q, axis=-1):
    r"""Pufferfish leakage :math:`\max_\omega|\log p(\omega)/q(\omega)|` of one secret pair.

    Equals :math:`\max\{D_\infty(p\|q), D_\infty(q\|p)\}`; this is the smallest
    :math:`\epsilon` with :math:`e^{-\epsilon}\le p(\omega)/q(\omega)\le e^{\epsilon}`
    (Kifer & Machanavajjhala 2014, Def. 3.4; Bai et al. 2026, Def. 5).
    """
    return np.maximum(discrete_renyi(p, q, np.inf, axis=axis),
                      discrete_renyi(q, p, np.inf, axis=axis))
