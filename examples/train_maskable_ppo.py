"""Train sb3-contrib's MaskablePPO on clustersched.rl and compare it with the baselines on held-out windows.

Needs the ``rl-train`` extra, which pulls torch (several GB): ``pip install "clustersched[rl-train]"``.
Not run by the test suite (only compiled); the numpy-only version is ``08_learned_scheduler.ipynb``.

The masks come from the environment as they are: MaskablePPO asks ``env.action_masks()``, which
:class:`clustersched.rl.BatchPickEnv` defines (the environment is used as it is, without the wrappers of
``gymnasium.make``, so that no wrapper stands between the method and MaskablePPO).  ``--trace`` trains on an SWF file
(RLScheduler's own is ``../shared/data/swf/small/rlscheduler__lublin_256.swf``); the default is the
environment's default trace.

Usage::

    python examples/train_maskable_ppo.py --steps 200000 --backfill easy
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="training decisions (default: 100000)")
    parser.add_argument("--backfill", choices=["none", "easy"], default="none", help="backfilling (default: none)")
    parser.add_argument("--trace", default=None, help="an SWF trace (default: the environment's Lublin-256 trace)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the policy and of the windows (default: 0)")
    args = parser.parse_args(argv)
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        print('MaskablePPO needs the rl-train extra: pip install "clustersched[rl-train]"', file=sys.stderr)
        return 2

    import numpy as np

    from clustersched import rl

    options = {"backfill": args.backfill, "jobs": args.trace}
    env = rl.BatchPickEnv(split="train", **options)
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, verbose=1)
    began = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    print(f"trained for {args.steps} decisions in {time.perf_counter() - began:.0f} s")

    test = rl.BatchPickEnv(split="test", **options)

    def agent(obs: np.ndarray, mask: np.ndarray) -> int:
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        return int(action)

    for row in rl.compare(test, {"MaskablePPO": agent}):
        print(
            f"{row['policy']:>12}  backfill={row['backfill']:<4}  bounded slowdown {row['avg_bounded_slowdown']:10.2f}"
            f"  wait {row['avg_wait']:10.0f} s  utilization {row['utilization']:.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
