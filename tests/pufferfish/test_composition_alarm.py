"""The general Bayesian-network code of rpp.pufferfish._bif: BIF reader, variable
elimination against brute-force enumeration, the Sec. 6.3.1 estimate of Bai et al. against
the binary-network implementation (Asia), and the packaged ALARM network."""

import itertools

import numpy as np
import pytest

import rpp.pufferfish as pf
from rpp.pufferfish import bn_ab_estimate, bn_marginal, read_bif
from rpp_book import composition_examples as examples
from rpp_book.composition_examples import load_alarm


def to_general(net):
    """A binary network of rpp.pufferfish._bayesnet as a general network."""
    out = {}
    for v, (parents, table) in net.items():
        cpt = np.zeros((2,) * len(parents) + (2,))
        for key, p1 in table.items():
            cpt[(*key, 1)], cpt[(*key, 0)] = p1, 1 - p1
        out[v] = (tuple(parents), cpt, ("0", "1"))
    return out


def random_network(rng, n=6, max_card=3):
    """A random DAG (each node has up to 2 earlier parents) with random tables."""
    cards = rng.integers(2, max_card + 1, n)
    net = {}
    for i in range(n):
        parents = tuple(f"X{j}" for j in sorted(rng.choice(i, min(i, rng.integers(0, 3)), replace=False)))
        shape = [cards[int(p[1:])] for p in parents] + [cards[i]]
        net[f"X{i}"] = (parents, rng.dirichlet(np.ones(cards[i]), size=shape[:-1]), tuple(map(str, range(cards[i]))))
    return net


def brute_joint(net):
    names = list(net)
    shape = [len(net[v][2]) for v in names]
    J = np.ones(shape)
    for cell in itertools.product(*map(range, shape)):
        x = dict(zip(names, cell, strict=True))
        J[cell] = np.prod([cpt[(*(x[p] for p in par), x[v])] for v, (par, cpt, _) in net.items()])
    return J, names


def test_marginal_matches_enumeration():
    rng = np.random.default_rng(3)
    for _ in range(5):
        net = random_network(rng)
        J, names = brute_joint(net)
        assert np.isclose(J.sum(), 1)
        keep = ["X4", "X1"]
        ref = J.sum(axis=tuple(i for i, v in enumerate(names) if v not in keep))
        ref = ref.T  # axes in the order of `keep`
        assert np.allclose(bn_marginal(net, keep), ref)


def test_estimate_matches_definition_on_random_networks():
    """a-dagger through the moral boundary equals Def. 2 on the enumerated joint."""
    rng = np.random.default_rng(4)
    for _ in range(4):
        net = random_network(rng, n=5)
        J, names = brute_joint(net)
        est = bn_ab_estimate(net, [1, 2, 3, 4, 5])
        ref = []
        for b in (1, 2, 3, 4, 5):
            worst = 0.0
            for k, v in enumerate(names):
                cands = [tuple(sorted({k} | {names.index(u) for u in N})) for N in pf.bfs_neighbour_sets(net, v, b - 1)]
                card = len(net[v][2])
                for x, y in itertools.permutations(range(card), 2):
                    si, sj = np.indices(J.shape)[k] == x, np.indices(J.shape)[k] == y
                    val, _ = pf.a_star_bruteforce(J, si, sj, b, candidates=cands)
                    worst = max(worst, val)
            ref.append(worst)
        # the estimate also carries the value of the previous b (never larger than Def. 2's min)
        assert np.all(est <= np.array(ref) + 1e-9)
        assert np.allclose(est, np.minimum.accumulate(ref), atol=1e-9)


def test_asia_agrees_with_binary_implementation():
    asia = to_general(examples.ASIA)
    bs = np.arange(1, 9)
    ref = pf.bn_ab_curve(examples.ASIA, bs, "estimate")
    assert np.allclose(bn_ab_estimate(asia, bs), ref)
    # the +-20 % bound a + 2 log(1.5) is never below the sharp bound
    unc = bn_ab_estimate(asia, bs, (0.8, 1.2))
    assert np.all(unc >= pf.bn_ab_curve(examples.ASIA, bs, "estimate", (0.8, 1.2)) - 1e-12)


def test_read_bif_rejects_bad_tables():
    good = "variable A { type discrete [ 2 ] { y, n }; }\nprobability ( A ) { table 0.3, 0.7; }"
    assert read_bif(good)["A"][1].tolist() == [0.3, 0.7]
    with pytest.raises(ValueError, match="not normalised"):
        read_bif(good.replace("0.7", "0.6"))
    with pytest.raises(ValueError, match="no probability block"):
        read_bif(good + "\nvariable B { type discrete [ 2 ] { y, n }; }")
    with pytest.raises(ValueError, match="uncertainty"):
        bn_ab_estimate(read_bif(good), [1], (1.2, 0.8))
    with pytest.raises(ValueError, match="bs"):
        bn_ab_estimate(read_bif(good), [2])


def test_alarm_is_the_published_network():
    alarm = load_alarm()
    assert len(alarm) == 37
    assert sum(len(p) for p, _, _ in alarm.values()) == 46
    assert sum(cpt[..., :-1].size for _, cpt, _ in alarm.values()) == 509  # free parameters
    for v in ("HYPOVOLEMIA", "LVFAILURE"):
        assert np.isclose(bn_marginal(alarm, [v]).sum(), 1)
