r"""Accounting: several releases, every secret pair, (ε, δ), and what ε means to an attacker.

The one home of the accounting names (the modules of this package are private):

* repeated releases of one query with fresh Gaussian noise,
  composed exactly: :func:`releases_divergence`, :func:`calibrate_releases`,
  :func:`combined_scale`;
* several *different* linear queries of Gaussian data
  under Gaussian noise, composed exactly through their joint multivariate Gaussian law:
  :func:`multivariate_gaussian_renyi`, :func:`linear_release_law`,
  :func:`linear_queries_divergence`, :func:`calibrate_linear_queries`, and against an adversary
  who also knows some of the target's attributes, :func:`side_information_divergence`;
* priors known only to a box: :func:`prior_box_divergence`, a proved worst case of two
  joint linear queries over a box of bivariate Gaussian priors, covariances included
  (:class:`PriorBoxBound`), and :func:`prior_box_side_divergence` for an adversary who also
  knows one of the target's two attributes (:class:`PriorBoxSideBound`);
* every pair and a budget: :func:`calibrate_all_pairs` (the noise for every secret pair
  of a prior model or a finite prior class) and :class:`ReleaseBudget` (a budget for repeated
  releases that refuses overspending);
* conversions, from :math:`(\alpha, \varepsilon)` to
  :math:`(\varepsilon', \delta)`: :func:`dp_delta`, :func:`dp_epsilon`, the best over a curve
  (:func:`best_dp_delta`, :func:`best_dp_epsilon`), and the exact :math:`\delta^*` of Gaussian
  pairs (:func:`gaussian_shift_delta`, :func:`gaussian_hockey_stick`, :func:`gaussian_loss_tail`);
* the privacy-loss law of two *multivariate* Gaussians (a
  generalised chi-square): its tails (:func:`multivariate_gaussian_loss_tail`), the exact
  :math:`\delta^*(\varepsilon')` (:func:`multivariate_gaussian_hockey_stick`) and the trade-off curve
  (:func:`multivariate_gaussian_true_positive_rate`) of a joint linear release;
* the attacker's view: bounds on the posterior-odds
  update (:func:`odds_moment_bound`, :func:`odds_update_bound`, :func:`posterior_bound`) and the
  hypothesis-testing trade-off (:func:`max_true_positive_rate`), the best tests of two Gaussian
  outputs (:func:`gaussian_true_positive_rate`), of two Gaussian mixtures (:func:`mixture_test_rates`) and of
  two discrete priors under Laplace noise (:func:`laplace_mixture_test_rates`);
* audits, the converse, measured: a threshold attack on simulated releases
  (:func:`audit_threshold_attack`, :class:`ThresholdAudit`), exact confidence intervals for its rates
  (:func:`rate_interval`) and the lower bound on the leakage they prove (:func:`renyi_lower_bound`);
* dp-accounting: :class:`RppLedger`, which records RPP releases
  in Google's dp-accounting (optional extra ``rpp-book[accounting]``);
* the report of a release: :func:`release_report`
  (:class:`ReleaseReport`, as text and as a JSON record): the guarantee, its
  :math:`(\varepsilon', \delta)` conversions, the attacker's odds and test power, the noise and its
  source, and the assumptions.
"""

from ._audit import ThresholdAudit, audit_threshold_attack, rate_interval, renyi_lower_bound
from ._budget import ReleaseBudget, calibrate_all_pairs
from ._conversions import (
    BestConversion,
    best_dp_delta,
    best_dp_epsilon,
    dp_delta,
    dp_epsilon,
    gaussian_hockey_stick,
    gaussian_loss_tail,
    gaussian_shift_delta,
)
from ._dp_accounting_adapter import (
    RppLedger,
    dominating_noise_multiplier,
    gaussian_event_for_curve,
)
from ._gaussian_loss import (
    multivariate_gaussian_hockey_stick,
    multivariate_gaussian_loss_tail,
    multivariate_gaussian_true_positive_rate,
)
from ._interpretation import (
    gaussian_true_positive_rate,
    laplace_mixture_test_rates,
    max_true_positive_rate,
    mixture_test_rates,
    odds_moment_bound,
    odds_update_bound,
    posterior_bound,
)
from ._linear_queries import (
    LinearCalibration,
    calibrate_linear_queries,
    linear_queries_divergence,
    linear_release_law,
    multivariate_gaussian_renyi,
    side_information_divergence,
)
from ._prior_box import PriorBoxBound, PriorBoxSideBound, prior_box_divergence, prior_box_side_divergence
from ._releases import calibrate_releases, combined_scale, releases_divergence
from ._report import ReleaseReport, release_report

__all__ = [
    "ReleaseBudget",
    "calibrate_all_pairs",
    "releases_divergence",
    "calibrate_releases",
    "combined_scale",
    "multivariate_gaussian_renyi",
    "linear_release_law",
    "linear_queries_divergence",
    "calibrate_linear_queries",
    "side_information_divergence",
    "LinearCalibration",
    "prior_box_divergence",
    "PriorBoxBound",
    "prior_box_side_divergence",
    "PriorBoxSideBound",
    "dp_delta",
    "dp_epsilon",
    "best_dp_delta",
    "best_dp_epsilon",
    "BestConversion",
    "gaussian_shift_delta",
    "gaussian_hockey_stick",
    "gaussian_loss_tail",
    "multivariate_gaussian_loss_tail",
    "multivariate_gaussian_hockey_stick",
    "multivariate_gaussian_true_positive_rate",
    "odds_moment_bound",
    "odds_update_bound",
    "posterior_bound",
    "max_true_positive_rate",
    "gaussian_true_positive_rate",
    "mixture_test_rates",
    "laplace_mixture_test_rates",
    "audit_threshold_attack",
    "ThresholdAudit",
    "rate_interval",
    "renyi_lower_bound",
    "RppLedger",
    "dominating_noise_multiplier",
    "gaussian_event_for_curve",
    "release_report",
    "ReleaseReport",
]
