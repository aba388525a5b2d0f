#!/usr/bin/env python3
"""The FGD experiment from a notebook: the table of Weng et al., "Beware of
Fragmentation" (USENIX ATC 2023), rerun with dractl's simulator on the Alibaba
openb trace, into a pandas DataFrame and a matplotlib figure.

For each policy (the paper's six and dractl's dra-pack) and seed, the trace's
pods arrive one at a time until 130% of the cluster's GPU capacity has been
asked for; the GPU allocation is logged against the share arrived. The table
has the mean allocation at 100% and 130% arrived, next to the paper's
published mean (testdata/traces/alibaba-openb/expected) where it has one; the
figure plots allocation against arrived share, one line per policy.

    pip install pandas matplotlib        # besides dractl itself (README, "Python")
    python examples/python/fgd.py                       # seeds 42-51, as the paper
    python examples/python/fgd.py --seeds 42 --policies fgd,dra-pack --out build/fgd
"""

import argparse
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")  # files, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

import dractl  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
TRACE = REPO / "testdata/traces/alibaba-openb"
POLICIES = ["random", "dotprod", "gpuclustering", "gpupacking", "bestfit", "fgd", "dra-pack"]


def run(trace: str, policies: list[str], seeds: str, jobs: int) -> list[dict]:
    return dractl.simulate_openb(
        TRACE / "openb_node_list_gpu_node.csv",
        TRACE / f"openb_pod_list_{trace}.csv",
        policy=policies,
        seeds=seeds,
        expected=TRACE / "expected",
        series=True,
        jobs=jobs,
    )


def table(runs: list[dict]) -> pd.DataFrame:
    """One row per policy: mean (sd) allocation at 100% and 130% arrived, and the published means."""
    rows = []
    for r in runs:
        published = r.get("published", {}).get("allocation", {})
        row = {"policy": r["policy"], "seeds": len(r["runs"])}
        for arrived in ("100", "130"):
            row[f"alloc@{arrived}"] = r["allocation"][arrived]["mean"]
            row[f"sd@{arrived}"] = r["allocation"][arrived]["sd"]
            row[f"published@{arrived}"] = published.get(arrived, {}).get("mean")
        rows.append(row)
    df = pd.DataFrame(rows).set_index("policy")
    for arrived in ("100", "130"):
        df[f"delta@{arrived}"] = df[f"alloc@{arrived}"] - df[f"published@{arrived}"]
    return df.sort_values("alloc@130")


def series(runs: list[dict]) -> pd.DataFrame:
    """Allocation per policy, seed and arrived percentage (long form)."""
    frames = []
    for r in runs:
        wide = pd.DataFrame([row for row in r["series"] if row["metric"] == "allocation"])
        columns = [c for c in wide.columns if str(c).isdigit()]
        long = wide.melt(id_vars=["policy", "seed"], value_vars=columns, var_name="arrived", value_name="allocation")
        long["arrived"] = long["arrived"].astype(int)
        frames.append(long)
    return pd.concat(frames, ignore_index=True)


def figure(curves: pd.DataFrame, trace: str, path: pathlib.Path) -> None:
    mean = curves.groupby(["policy", "arrived"])["allocation"].mean().unstack("policy")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for policy in mean.columns:
        ax.plot(mean.index, mean[policy], label=policy, linewidth=2 if policy in ("fgd", "dra-pack") else 1)
    ax.plot([0, 100], [0, 100], color="grey", linestyle=":", linewidth=1, label="ideal")
    ax.set_xlabel("GPU capacity arrived (%)")
    ax.set_ylabel("GPU allocation (%)")
    seeds = curves["seed"].nunique()
    ax.set_title(f"openb {trace}: GPU allocation by policy ({seeds} seed{'s' if seeds != 1 else ''})")
    ax.set_xlim(60, 130)
    ax.set_ylim(60, 100)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", default="default", help="openb pod list: default, gpuspec33, multigpu50, ...")
    parser.add_argument("--policies", default=",".join(POLICIES), help="comma-separated")
    parser.add_argument("--seeds", default="42-51", help="42, 42,43 or 42-51 (the paper's ten)")
    parser.add_argument("--jobs", type=int, default=1, help="runs in parallel (threads)")
    parser.add_argument("--out", default="build/fgd", help="folder for fgd.csv and fgd.png")
    args = parser.parse_args(argv)

    runs = run(args.trace, args.policies.split(","), args.seeds, args.jobs)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    df = table(runs)
    df.to_csv(out / "fgd.csv")
    figure(series(runs), args.trace, out / "fgd.png")
    with pd.option_context("display.width", 200, "display.max_columns", None, "display.precision", 2):
        print(df)
    print(f"\nwrote {out / 'fgd.csv'} and {out / 'fgd.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
