r"""Composition for (Rényi) Pufferfish privacy — chapter 7 of The RPP Book.

Machinery for Bai, He, Gu, Kifer & Maeng (2026), "Composition for Pufferfish Privacy":
privacy-collapse mechanisms (:mod:`.collapse`), the necessary-for-composition linear
programs (:mod:`.nfc`), the :math:`a(b)`-influence curve and Theorems 3–4
(:mod:`.influence`), Markov-chain, Gaussian and Bayesian-network priors
(:mod:`.markov`, :mod:`.gaussian`, :mod:`.bayesnet`), the Markov Quilt Mechanism and
Top-:math:`k` experiments (:mod:`.markov`, :mod:`.topk`), and discrete Rényi divergences
(:mod:`.discrete`).
"""
from .discrete import discrete_renyi, pufferfish_leakage
from .collapse import (example1_mechanism, example1_expected_runs, example1_runs_bound,
                       simulate_example1, example3_mechanism, simulate_example3,
                       example5_epsilon, example5_epsilon_bruteforce, example5_mechanism,
                       simulate_example5, posterior_of_secret, composed_output_distribution)
from .nfc import (nfc_matrix, nfc_primal, nfc_dual, nfc_min_epsilon, composed_leakage_exact,
                  nfc_violation)
from .influence import (conditional_marginal, a_dagger, a_dagger_uncertain,
                        uncertain_ratio_bound, a_star_bruteforce, ab_curve_bruteforce,
                        entry_secret_pairs, theorem3_epsilon_puffer, epsilon_puffer_from_curve,
                        best_b, epsilon_dp_from_curve, theorem4_epsilon, per_entry_dp_curve,
                        group_dp_curve, dependent_dp_curve, misspecified_epsilon,
                        randomized_response_mechanism, pufferfish_epsilon_exact,
                        secret_conditionals)
from .markov import (stationary_distribution, chain_joint, two_state_side_logratios,
                     two_state_ab_paper, two_state_ab_exact, chain_quilt_table, chain_ab_curve,
                     chain_ab_interior, interior_leak_profile, mqm_sigma_chain,
                     mqm_sigma_interior, smooth_transition_matrix, fit_transition_matrix,
                     simulate_chains)
from .gaussian import (gp_covariance, log_interval_prob, conditional_weights, region_grid,
                       region_influence_sweep, gaussian_region_ab_curve, farthest_low_sets,
                       region_influence_direct)
from .bayesnet import ASIA, bn_joint, moral_graph, bfs_neighbour_sets, bn_ab_curve
from .topk import (CAPTURE24_STATES, activity_chain, em_topk, laplace_topk, topk_metrics,
                   true_topk)
