r"""Composition for (Rényi) Pufferfish privacy -- chapter 7 of The RPP Book.

Machinery for Bai, He, Gu, Kifer & Maeng (2026), "Composition for Pufferfish Privacy",
built on :mod:`rpp.pufferfish.finite` (randomized response, conditional output laws, the Pufferfish
leakage) and :mod:`rpp.divergence`: posteriors and repeated runs (``collapse``), the
necessary-for-composition linear programs (``nfc``), the :math:`a(b)`-influence curve
and Theorems 3–4 (``influence``), Markov-chain, Gaussian and Bayesian-network priors
(``markov``, ``gaussian_field``, ``bayesnet``; ``bif`` for networks of any arity read from
BIF files), the Markov Quilt Mechanism and
(``markov``); the Top-:math:`k` mechanisms and the activity chains of the book's chapter 8 are
book support (``rpp_book.topk``, ``rpp_book.chain_data``).

``discrete_renyi_divergence`` (a :class:`rpp.Certified`) is :func:`rpp.discrete_renyi_divergence`, and
``pufferfish_leakage`` is :func:`rpp.pufferfish.finite.pufferfish_leakage`.  The paper's examples (``example1_*``,
``example3_*``, ``example5_*``, ``simulate_example*``, ``ASIA``, ``CAPTURE24_STATES``) live in
:mod:`rpp_book.composition_examples` (book support, never imported by the library).
"""

from ..divergence.closed_forms import discrete_renyi_divergence
from .bayesnet import bfs_neighbour_sets, bn_ab_curve, bn_joint, moral_graph
from .bif import bn_ab_estimate, bn_marginal, read_bif
from .collapse import composed_output_distribution, posterior_of_secret
from .exact import (
    pufferfish_epsilon_exact,
    randomized_response_mechanism,
    secret_conditionals,
)
from .finite import pufferfish_leakage
from .gaussian_field import (
    conditional_weights,
    farthest_low_sets,
    gaussian_region_ab_curve,
    gp_covariance,
    log_interval_prob,
    region_grid,
    region_influence_direct,
    region_influence_sweep,
)
from .influence import (
    a_dagger,
    a_dagger_uncertain,
    a_star_bruteforce,
    ab_curve_bruteforce,
    conditional_marginal,
    entry_secret_pairs,
    uncertain_ratio_bound,
)
from .markov import (
    chain_ab_curve,
    chain_ab_interior,
    chain_joint,
    chain_quilt_table,
    interior_leak_profile,
    mqm_sigma_chain,
    mqm_sigma_interior,
    stationary_distribution,
    two_state_ab_exact,
    two_state_ab_paper,
    two_state_side_logratios,
)
from .nfc import (
    composed_leakage_exact,
    nfc_dual,
    nfc_matrix,
    nfc_min_epsilon,
    nfc_primal,
    nfc_violation,
)
from .theorems import (
    best_b,
    dependent_dp_curve,
    epsilon_dp_from_curve,
    epsilon_puffer_from_curve,
    group_dp_curve,
    misspecified_epsilon,
    per_entry_dp_curve,
    theorem4_epsilon,
)

__all__ = [
    "discrete_renyi_divergence",
    "pufferfish_leakage",
    "posterior_of_secret",
    "composed_output_distribution",
    "nfc_matrix",
    "nfc_primal",
    "nfc_dual",
    "nfc_min_epsilon",
    "composed_leakage_exact",
    "nfc_violation",
    "conditional_marginal",
    "a_dagger",
    "a_dagger_uncertain",
    "uncertain_ratio_bound",
    "a_star_bruteforce",
    "ab_curve_bruteforce",
    "entry_secret_pairs",
    "epsilon_puffer_from_curve",
    "best_b",
    "epsilon_dp_from_curve",
    "theorem4_epsilon",
    "per_entry_dp_curve",
    "group_dp_curve",
    "dependent_dp_curve",
    "misspecified_epsilon",
    "randomized_response_mechanism",
    "pufferfish_epsilon_exact",
    "secret_conditionals",
    "stationary_distribution",
    "chain_joint",
    "two_state_side_logratios",
    "two_state_ab_paper",
    "two_state_ab_exact",
    "chain_quilt_table",
    "chain_ab_curve",
    "chain_ab_interior",
    "interior_leak_profile",
    "mqm_sigma_chain",
    "mqm_sigma_interior",
    "gp_covariance",
    "log_interval_prob",
    "conditional_weights",
    "region_grid",
    "region_influence_sweep",
    "gaussian_region_ab_curve",
    "farthest_low_sets",
    "region_influence_direct",
    "bn_joint",
    "moral_graph",
    "bfs_neighbour_sets",
    "bn_ab_curve",
    "read_bif",
    "bn_marginal",
    "bn_ab_estimate",
]
