r"""Composition for (Rényi) Pufferfish privacy -- chapter 7 of The RPP Book.

Machinery for Bai, He, Gu, Kifer & Maeng (2026), "Composition for Pufferfish Privacy", built on
:mod:`rpp.divergence` (:func:`rpp.divergence.discrete_renyi_divergence`, a :class:`rpp.Certified`).
This package is the one home of its names (its modules are private):

* finite spaces: randomized response (:func:`randomized_response`, :func:`product_channel`),
  conditional output laws (:func:`conditional_output_pmf`), posteriors
  (:func:`posterior_odds`), the Pufferfish parameter (:func:`pufferfish_epsilon`,
  :func:`pufferfish_leakage`) and :func:`hockey_stick_divergence`;
* posteriors and repeated runs (Sec. 4): :func:`posterior_of_secret`,
  :func:`composed_output_distribution`;
* the necessary-for-composition linear programs (Sec. 5): :func:`nfc_matrix`, :func:`nfc_primal`,
  :func:`nfc_dual`, :func:`nfc_min_epsilon`, :func:`composed_leakage_exact`, :func:`nfc_violation`;
* the :math:`a(b)`-influence curve and Theorems 3–4 (Sec. 6): :func:`a_dagger`,
  :func:`a_star_bruteforce`, :func:`ab_curve_bruteforce`, :func:`epsilon_puffer_from_curve`,
  :func:`theorem4_epsilon` and their relatives; randomized response on :math:`n` entries and the
  exact Pufferfish parameter of a mechanism (:func:`pufferfish_epsilon_exact`);
* Markov-chain priors and the Markov Quilt Mechanism (Sec. 6.4): :func:`stationary_distribution`,
  :func:`chain_joint`, the two-state closed forms (:func:`two_state_ab_exact`, ...),
  :func:`chain_ab_curve`, :func:`mqm_sigma_chain`;
* Gaussian-field priors: :func:`gp_covariance`, :func:`gaussian_region_ab_curve`, ...;
* Bayesian-network priors: :func:`bn_joint`, :func:`bn_ab_curve`, and networks of any arity read
  from BIF files (:func:`read_bif`, :func:`bn_marginal`, :func:`bn_ab_estimate`).

The Top-:math:`k` mechanisms and the activity chains of the book's chapter 8 are book support
(``rpp_book.topk``, ``rpp_book.chain_data``).  The paper's examples (``example1_*``,
``example3_*``, ``example5_*``, ``simulate_example*``, ``ASIA``, ``CAPTURE24_STATES``) live in
:mod:`rpp_book.composition_examples` (book support, never imported by the library).
"""

from ._bayesnet import bfs_neighbour_sets, bn_ab_curve, bn_joint, moral_graph
from ._bif import bn_ab_estimate, bn_marginal, read_bif
from ._collapse import composed_output_distribution, posterior_of_secret
from ._exact import (
    pufferfish_epsilon_exact,
    randomized_response_mechanism,
    secret_conditionals,
)
from ._finite import (
    conditional_output_pmf,
    hockey_stick_divergence,
    posterior_odds,
    product_channel,
    pufferfish_epsilon,
    pufferfish_leakage,
    randomized_response,
)
from ._gaussian_field import (
    conditional_weights,
    farthest_low_sets,
    gaussian_region_ab_curve,
    gp_covariance,
    log_interval_prob,
    region_grid,
    region_influence_direct,
    region_influence_sweep,
)
from ._influence import (
    a_dagger,
    a_dagger_uncertain,
    a_star_bruteforce,
    ab_curve_bruteforce,
    conditional_marginal,
    entry_secret_pairs,
    uncertain_ratio_bound,
)
from ._markov import (
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
from ._nfc import (
    composed_leakage_exact,
    nfc_dual,
    nfc_matrix,
    nfc_min_epsilon,
    nfc_primal,
    nfc_violation,
)
from ._theorems import (
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
    "hockey_stick_divergence",
    "randomized_response",
    "product_channel",
    "conditional_output_pmf",
    "pufferfish_epsilon",
    "posterior_odds",
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
