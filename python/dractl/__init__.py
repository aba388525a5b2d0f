"""dractl for Python: Kubernetes Dynamic Resource Allocation, from notebooks.

The functions run dractl's commands in-process, over the C++ engine of the
``dractl`` command line (the extension ``dractl._core``), and return what the
command's ``-o json`` prints, as dicts and lists. Results are those of the
command line, field for field: ``dractl.schedule(cluster)`` is
``dractl schedule -f cluster -o json``.

Manifests (the ``*inputs`` of each function) may be given as:

* a path (``str`` or ``os.PathLike``) to a file or a folder, read as ``-f`` reads it;
* YAML or JSON text (a ``str`` holding a newline, or starting with ``{``);
* a ``dict`` (one object) or a ``list`` of dicts (a v1 List);

several of them at once. Problems in the input raise :class:`InputError`,
whose ``problems`` carry file, line, column, object and field path; text and
dicts are named ``<input N>`` (their N-th place among the inputs) in them.

Exit codes become exceptions: 1 :class:`InputError`, 2 :class:`UsageError`
(a ``ValueError``), 3 :class:`InternalError`, 4 :class:`Unsatisfiable`
(``allocate``: the claims do not fit the node). :func:`run` runs any command
with any flags and raises nothing.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import tempfile
from typing import Any, Iterable, Mapping, Sequence

from . import _core

__all__ = [
    "Error",
    "InputError",
    "InternalError",
    "Problem",
    "Result",
    "Unsatisfiable",
    "UsageError",
    "allocate",
    "commands",
    "eval",
    "explain",
    "load",
    "plan",
    "run",
    "schedule",
    "simulate_cluster",
    "simulate_openb",
    "validate",
]

__version__: str = _core.__version__


@dataclasses.dataclass(frozen=True)
class Problem:
    """One problem in the input, as ``dractl validate`` reports it."""

    severity: str  # "error" or "warning"
    file: str
    line: int
    column: int
    object: str  # "ResourceClaim ns/name"; may be empty
    field: str  # field path, "spec.devices.requests[0].exactly.count"; may be empty
    message: str

    def __str__(self) -> str:
        parts = []
        if self.file:
            where = self.file
            if self.line:
                where += f":{self.line}:{self.column}"
            parts.append(where)
        if self.severity == "warning":
            parts.append("warning")
        if self.object:
            parts.append(self.object)
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)


@dataclasses.dataclass(frozen=True)
class Result:
    """What one command did: its exit code and what it printed."""

    exit_code: int
    stdout: str
    stderr: str
    problems: list[Problem]


class Error(Exception):
    """A dractl command failed; ``str()`` is what it printed on stderr."""

    def __init__(self, result: Result, command: Sequence[str]):
        self.result = result
        self.command = list(command)
        self.exit_code = result.exit_code
        self.stderr = result.stderr
        self.problems = result.problems
        message = result.stderr.strip() or f"dractl {command[0]} exited with {result.exit_code}"
        super().__init__(message)

    @property
    def errors(self) -> list[Problem]:
        """The problems of severity "error"."""
        return [p for p in self.problems if p.severity == "error"]


class InputError(Error):
    """The input has errors (exit code 1): see ``problems``."""


class UsageError(Error, ValueError):
    """Bad flags or arguments (exit code 2)."""


class InternalError(Error):
    """A bug in dractl (exit code 3)."""


class Unsatisfiable(Error):
    """allocate: the claims do not fit the node (exit code 4); ``str()`` says why."""


_ERRORS = {1: InputError, 2: UsageError, 3: InternalError, 4: Unsatisfiable}


def commands() -> list[str]:
    """The commands of the dractl command line, which :func:`run` runs."""
    return list(_core.commands())


def _flag_args(flags: Mapping[str, Any]) -> list[str]:
    """Keyword arguments as command-line flags: policy="fgd" -> --policy fgd,
    all_pending=True -> --all-pending, claims=[a, b] -> --claim a --claim b
    (the caller names the flag), None and False are left out."""
    args: list[str] = []
    for name, value in flags.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, _text(v)]
        else:
            args += [flag, _text(value)]
    return args


def _text(value: Any) -> str:
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _input_args(inputs: Iterable[Any]) -> tuple[list[str], list[tuple[str, str]]]:
    """The -f arguments for `inputs`, and the texts of those given in memory."""
    args: list[str] = []
    texts: list[tuple[str, str]] = []
    for i, item in enumerate(inputs, start=1):
        if isinstance(item, os.PathLike):
            args += ["-f", os.fspath(item)]
            continue
        if isinstance(item, str):
            stripped = item.lstrip()
            if "\n" not in item and not stripped.startswith("{"):
                args += ["-f", item]  # a path; dractl says so if it cannot read it
                continue
            text = item
        elif isinstance(item, Mapping):
            text = json.dumps(item, indent=2)
        elif isinstance(item, (list, tuple)):
            if not all(isinstance(o, Mapping) for o in item):
                raise TypeError(f"input {i}: a list of inputs must hold dicts (objects); "
                                "pass paths and texts as separate arguments")
            text = json.dumps({"apiVersion": "v1", "kind": "List", "items": list(item)}, indent=2)
        elif isinstance(item, bytes):
            text = item.decode("utf-8")
        else:
            raise TypeError(f"input {i}: expected a path, YAML/JSON text, a dict or a list of dicts, "
                            f"not {type(item).__name__}")
        name = f"<input {i}>"
        args += ["-f", name]
        texts.append((name, text))
    return args, texts


def run(command: str, *args: str, inputs: Mapping[str, str] | None = None) -> Result:
    """Runs ``dractl COMMAND ARGS...`` in-process and returns its exit code and
    output; raises nothing for a non-zero exit code. ``inputs`` maps names to
    manifest texts: an ``-f NAME`` argument reads the text instead of a file."""
    argv = command.split() + [_text(a) for a in args]
    rc, out, err, problems = _core.run(argv, list((inputs or {}).items()))
    return Result(
        exit_code=rc,
        stdout=out.decode("utf-8", errors="replace"),
        stderr=err.decode("utf-8", errors="replace"),
        problems=[Problem(**p) for p in problems],
    )


def _call(command: str, inputs: Iterable[Any], args: list[str], *, ok: Sequence[int] = (0,),
          positionals: Sequence[str] = (), extra: Sequence[tuple[str, Any]] = ()) -> Result:
    """Runs `command` with `inputs` as -f, each (flag, input) of `extra`
    (numbered on from the inputs) as that flag's value, then `args` and
    `positionals`; raises the exit code's exception unless it is in `ok`."""
    extra = list(extra)
    input_args, texts = _input_args(list(inputs) + [value for _, value in extra])
    n = len(input_args) - 2 * len(extra)
    argv = command.split() + input_args[:n]
    for (flag, _), i in zip(extra, range(n, len(input_args), 2)):
        argv += [flag, input_args[i + 1]]
    argv += args
    if positionals:
        argv += ["--", *positionals]  # after "--": never read as a flag or another -f file
    result = run(*argv, inputs=dict(texts))
    if result.exit_code not in ok:
        raise _ERRORS.get(result.exit_code, Error)(result, argv)
    return result


def _json(result: Result) -> Any:
    return json.loads(result.stdout)


def validate(*inputs: Any, strict: bool = False, kubernetes_version: str | None = None,
             feature_gates: str | None = None, skip_unknown: bool = False) -> dict:
    """Checks objects as the API server would (``dractl validate -o json``).

    Returns the report: ``objects``, ``errors``, ``warnings`` and the
    ``problems`` (each with file, line, column, object, field, message). Input
    errors are in the report, not raised: ``report["errors"] == 0`` is valid.
    """
    args = _flag_args(dict(strict=strict, kubernetes_version=kubernetes_version,
                           feature_gates=feature_gates, skip_unknown=skip_unknown))
    return _json(_call("validate", inputs, args + ["-o", "json"], ok=(0, 1)))


def load(*inputs: Any, defaults: bool = False) -> list[dict]:
    """The objects dractl reads from `inputs`, as dicts (``dractl convert -o
    json``); with ``defaults=True``, as the API server stores them (defaulted).
    Raises InputError for input that does not parse or decode."""
    args = _flag_args(dict(defaults=defaults))
    return _json(_call("convert", inputs, args + ["-o", "json"]))["items"]


def eval(expression: str | None, *inputs: Any, device_class: str | None = None,  # noqa: A001
         kubernetes_version: str | None = None, feature_gates: str | None = None) -> dict:
    """Evaluates a CEL device selector (or, with ``device_class``, a
    DeviceClass's selectors) on every device of the ResourceSlices in `inputs`
    (``dractl eval -o json``): the selectors, and per device whether it
    matched or, under "error", why its evaluation failed. A selector that
    does not compile, or an unknown class, raises InputError."""
    args = _flag_args({"class": device_class, "kubernetes_version": kubernetes_version,
                       "feature_gates": feature_gates})
    positionals = [] if expression is None else [expression]
    result = _call("eval", inputs, args + ["-o", "json"], positionals=positionals, ok=(0, 1))
    if result.exit_code != 0 and not result.stdout.lstrip().startswith("{"):
        raise InputError(result, ["eval", *args])
    return _json(result)


def allocate(*inputs: Any, node: str, claims: Sequence[str] = (), templates: Sequence[str] = (),
             **flags: Any) -> list[dict]:
    """Allocates devices for claims on one node, as kube-scheduler's allocator
    would (``dractl allocate -o json``); returns the claims, in the order
    given, with status.allocation. Raises Unsatisfiable when they do not fit.
    Other flags of ``dractl allocate --help`` as keywords (device_choice="best-fit")."""
    args = _flag_args(dict(node=node, claim=list(claims), template=list(templates), **flags))
    out = _json(_call("allocate", inputs, args + ["-o", "json"]))
    return out["items"] if out.get("kind") == "List" else [out]


def schedule(*inputs: Any, policy: str = "kube", **flags: Any) -> dict:
    """Places the pending pods as kube-scheduler would, or with another
    ``policy`` (kube, binpack, best-fit, fgd, dra-pack) (``dractl schedule -o
    json``): a v1 List of the objects changed (pods with spec.nodeName or the
    PodScheduled=False condition, claims with status.allocation). Other flags
    of ``dractl schedule --help`` as keywords (seed=1, device_choice="best-fit")."""
    args = _flag_args(dict(policy=policy, **flags))
    return _json(_call("schedule", inputs, args + ["-o", "json"]))


def explain(*inputs: Any, pod: str | None = None, all_pending: bool = False, **flags: Any) -> dict:
    """Why a pending pod ("namespace/name") does not schedule, or, with
    ``all_pending=True``, every pod that stays pending (``dractl explain -o
    json``). Raises InputError for a pod that is not in the input."""
    if pod is None and not all_pending:
        raise ValueError("explain: give pod=\"namespace/name\" or all_pending=True")
    args = _flag_args(dict(all_pending=all_pending, **flags))
    positionals = [] if pod is None else [pod]
    return _json(_call("explain", inputs, args + ["-o", "json"], positionals=positionals))


def plan(*inputs: Any, node_groups: Any, expander: str = "optimal", **flags: Any) -> dict:
    """Which nodes of which node groups to add so that the pending pods fit
    (``dractl plan -o json``): ``scaleUp`` (group and count), ``cost``,
    ``lowerBound`` (optimal), ``placements`` and ``unschedulable`` (with the
    scheduler's reason). ``node_groups`` is a path, NodeGroup text, a dict or
    a list of those; ``expander`` is optimal (the cheapest set of nodes),
    least-waste, price, most-pods or random (the cluster autoscaler's).
    Other flags of ``dractl plan --help`` as keywords (max_time=5, policy="dra-pack")."""
    # A list holds several groups (a dict in it is one NodeGroup).
    groups = list(node_groups) if isinstance(node_groups, (list, tuple)) else [node_groups]
    args = _flag_args(dict(expander=expander, **flags)) + ["-o", "json"]
    return _json(_call("plan", inputs, args, extra=[("--node-groups", g) for g in groups]))


def _numbers(row: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in row.items():
        try:
            out[key] = int(value)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                out[key] = value
    return out


def simulate_openb(nodes: str | os.PathLike, pods: str | os.PathLike, *, policy: str | Sequence[str] = "fgd",
                   seeds: int | str | Sequence[int] = 42, expected: str | os.PathLike | None = None,
                   series: bool = False, **flags: Any) -> list[dict]:
    """Runs the FGD paper's protocol on an openb trace (``dractl simulate
    openb -o json``): one dict per policy with the allocation, fragmentation
    amount and ratio at 100% and 130% of GPU capacity arrived (mean and sd
    over the seeds), each run, and with ``expected`` (the published results'
    folder) the published numbers. ``policy`` and ``seeds`` may be lists.
    With ``series=True`` each dict also has ``"series"``: the rows of the
    per-column table (``--csv``: every arrived percentage 0..130, per seed).
    Other flags of ``dractl simulate --help`` as keywords (jobs=2, engine="dra")."""
    policies = policy if isinstance(policy, str) else ",".join(policy)
    seed_text = seeds if isinstance(seeds, (int, str)) else ",".join(str(s) for s in seeds)
    args = _flag_args(dict(nodes=nodes, pods=pods, policy=policies, seed=seed_text, expected=expected, **flags))
    args += ["-o", "json"]
    rows: list[dict] = []
    if not series:
        results = _json(_call("simulate openb", (), args))
    else:
        with tempfile.TemporaryDirectory(prefix="dractl-") as tmp:
            path = os.path.join(tmp, "series.csv")
            results = _json(_call("simulate openb", (), args + ["--csv", path]))
            with open(path, newline="", encoding="utf-8") as f:
                rows = [_numbers(row) for row in csv.DictReader(f)]
    if isinstance(results, dict):  # one policy: one object
        results = [results]
    if series:
        for r in results:
            r["series"] = [row for row in rows if row.get("policy") == r["policy"]]
    return results


def simulate_cluster(*inputs: Any, workload: Any, policy: str = "kube", node_groups: Any = None,
                     **flags: Any) -> dict:
    """Replays pods over time on a cluster of DRA objects with the scheduler of
    :func:`schedule` (``dractl simulate cluster -o json``): the summary, the
    series after every instant and each pod's arrival, start and node.
    ``workload`` is what arrives: a path (pods as YAML/JSON, or an openb pod
    CSV), manifest text, a dict, a list of dicts, or a list of paths and texts.
    With ``node_groups`` (as for :func:`plan`) the cluster autoscales and the
    result has ``autoscaling``: node-hours and cost per group, the events.
    Other flags of ``dractl simulate cluster --help`` as keywords (seed=1,
    expander="least-waste", provision_time="5m")."""
    if isinstance(workload, (list, tuple)) and not (workload and all(isinstance(w, Mapping) for w in workload)):
        workloads = list(workload)
    else:
        workloads = [workload]
    if node_groups is None:
        groups = []
    else:
        groups = list(node_groups) if isinstance(node_groups, (list, tuple)) else [node_groups]
    args = _flag_args(dict(policy=policy, **flags)) + ["-o", "json"]
    extra = [("--workload", w) for w in workloads] + [("--node-groups", g) for g in groups]
    return _json(_call("simulate cluster", inputs, args, extra=extra))
