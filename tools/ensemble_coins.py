"""Join several exported coin models into one ONNX model that averages them.

Usage (the ``onnx`` package is needed here only, never at run time)::

    python tools/ensemble_coins.py --member vision/models --member /tmp/coins --out /tmp/ensemble
    python tools/train_coins.py --calibrate-only /tmp/ensemble --fixtures fixtures/scenes/dev ...
    python tools/ensemble_coins.py --split vision/models --out /tmp/members   # member_0, member_1, ...

The shipped model, from its members so cut out (``coin_face.json`` records which give their face
only), with its halves for the cascade::

    python tools/ensemble_coins.py --member /tmp/members/member_0 --member /tmp/members/member_1 \
        --member /tmp/members/member_2 --face-member /tmp/members/member_3 \
        --face-member /tmp/members/member_4 --face-member /tmp/members/member_5 --cascade 5 --out DIR

Each member is a folder written by ``tools/train_coins.py`` (``coin_face.onnx`` and
``coin_face.json``); they must share the polar sampling and the kinds. The joined model has the
same input and outputs as one member, so the run-time code does not change:

- ``kind`` and ``face``: the mean of the members' logits (models trained apart err apart, so
  their mean is right more often and less sure when they disagree); a member joined with
  ``--face-member`` gives its face only, not its kind (one that learned faces from renders
  more than the others, whose kinds it reads worse);
- ``embed``: the members' embeddings, each scaled to unit length, side by side.

Its ``coin_face.json`` is the first member's, with the members recorded; refit its
temperatures with ``train_coins.py --calibrate-only`` before measuring it. ``--split`` cuts a
joined model back into its members, each exactly as it was joined (to join them otherwise).

With face-only members, ``--cascade MARGIN`` also writes the two halves of the joined model
apart, for a read that runs the face-only members only where it needs them
(``vision._coin_model``): ``coin_face_first.onnx``, the members that give their kind, joined,
and ``coin_face_more.onnx``, the face-only members, joined. A coin whose first members' mean
face logits differ by ``MARGIN`` or more is not shown to the others. ``coin_face.onnx`` stays
the whole model (the enrolment's embeddings are its).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import onnx
from onnx import helper

SAMPLING_KEYS = ("n_radii", "n_angles", "pad", "inner", "outer", "base_radius", "normalise", "kinds", "faces")
"""Metadata the members must agree on: they read the same polar image and name the same kinds."""
OUTPUTS = ("kind", "face", "embed")


def join(members: list[onnx.ModelProto], face_only: int = 0) -> onnx.ModelProto:
    """One model whose ``kind`` and ``face`` are the mean of the members' and whose ``embed``
    is their unit-length embeddings concatenated. The last ``face_only`` members give their
    face only: ``kind`` is the mean of the others'."""
    if len(members) < 2:
        raise ValueError("an ensemble needs at least two members")
    if not 0 <= face_only < len(members):
        raise ValueError(f"at least one member must give its kind, got {face_only} face-only of {len(members)}")
    opset = max(op.version for m in members for op in m.opset_import if op.domain in ("", "ai.onnx"))
    nodes, inits = [], []
    graph_input = members[0].graph.input[0]
    for i, member in enumerate(members):
        renamed = onnx.compose.add_prefix(member, prefix=f"m{i}_")
        g = renamed.graph
        # Every member reads the one shared input.
        feed = g.input[0].name
        for node in g.node:
            node.input[:] = [graph_input.name if name == feed else name for name in node.input]
        nodes += list(g.node)
        inits += list(g.initializer)
        # Unit length by plain operations (OpenCV's importer has no LpNormalization).
        e = f"m{i}_embed"
        nodes += [
            helper.make_node("ReduceSumSquare", [e], [f"{e}_sq"], axes=[1], keepdims=1),
            helper.make_node("Sqrt", [f"{e}_sq"], [f"{e}_norm"]),
            helper.make_node("Add", [f"{e}_norm", "ensemble_eps"], [f"{e}_norm_eps"]),
            helper.make_node("Div", [e, f"{e}_norm_eps"], [f"{e}_unit"]),
        ]
    n = len(members)
    inits.append(helper.make_tensor("ensemble_eps", onnx.TensorProto.FLOAT, [], [1e-6]))
    for out, giving in (("kind", n - face_only), ("face", n)):
        inits.append(helper.make_tensor(f"{out}_share", onnx.TensorProto.FLOAT, [], [1.0 / giving]))
        nodes.append(helper.make_node("Sum", [f"m{i}_{out}" for i in range(giving)], [f"{out}_sum"]))
        nodes.append(helper.make_node("Mul", [f"{out}_sum", f"{out}_share"], [out]))
    nodes.append(helper.make_node("Concat", [f"m{i}_embed_unit" for i in range(n)], ["embed"], axis=1))
    outputs = []
    for out in OUTPUTS:
        dims = [d.dim_param or d.dim_value for d in members[0].graph.output[OUTPUTS.index(out)].type.tensor_type.shape.dim]
        if out == "embed":
            dims = [dims[0], sum(m.graph.output[2].type.tensor_type.shape.dim[1].dim_value for m in members)]
        outputs.append(helper.make_tensor_value_info(out, onnx.TensorProto.FLOAT, dims))
    graph = helper.make_graph(nodes, "coin_face_ensemble", [graph_input], outputs, initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = members[0].ir_version
    onnx.checker.check_model(model)
    return model


def split(model: onnx.ModelProto, n: int) -> list[onnx.ModelProto]:
    """The ``n`` members that :func:`join` joined into ``model``, each with its own ``kind``,
    ``face`` and ``embed`` (its embedding as it gave it, not yet of unit length)."""
    model = onnx.shape_inference.infer_shapes(model)
    feed = model.graph.input[0].name
    members = []
    for i in range(n):
        prefix = f"m{i}_"
        member = onnx.utils.Extractor(model).extract_model([feed], [prefix + out for out in OUTPUTS])
        g = member.graph
        for node in g.node:
            node.input[:] = [name.removeprefix(prefix) for name in node.input]
            node.output[:] = [name.removeprefix(prefix) for name in node.output]
            node.name = node.name.removeprefix(prefix)
        for tensor in list(g.initializer) + list(g.output) + list(g.value_info):
            tensor.name = tensor.name.removeprefix(prefix)
        onnx.checker.check_model(member)
        members.append(member)
    return members


def split_folder(joined: Path, out: Path) -> int:
    """Write each member of the joined model in ``joined`` to ``out/member_N`` (its ONNX model,
    and the joined description with that member's training record)."""
    meta = json.loads((joined / "coin_face.json").read_text())
    records = meta.get("members")
    if not records:
        print(f"error: {joined / 'coin_face.json'} names no members: not a joined model", file=sys.stderr)
        return 2
    members = split(onnx.load(str(joined / "coin_face.onnx")), len(records))
    for i, (member, record) in enumerate(zip(members, records)):
        folder = out / f"member_{i}"
        folder.mkdir(parents=True, exist_ok=True)
        onnx.save(member, str(folder / "coin_face.onnx"))
        own = {k: v for k, v in meta.items() if k not in ("members", "ensemble", "cascade")} | record
        face_only = own.pop("face_only", False)
        (folder / "coin_face.json").write_text(json.dumps(own, indent=1) + "\n")
        print(f"wrote {folder}{' (joined with --face-member: its face only)' if face_only else ''}")
    return 0


def main() -> int:
    """Join the members and write the ensemble's ``coin_face.onnx`` and ``coin_face.json`` (or,
    with ``--split``, write a joined model's members)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--member", type=Path, action="append", default=[], help="a model folder, repeatable")
    ap.add_argument(
        "--face-member", type=Path, action="append", default=[],
        help="a model folder whose face joins the mean but whose kind does not, repeatable",
    )
    ap.add_argument(
        "--cascade", type=float, default=None, metavar="MARGIN",
        help="also write the members giving their kind and the face-only members as two models, read "
        "one after the other: the second only for coins whose first face logits differ by less than MARGIN",
    )
    ap.add_argument("--split", type=Path, default=None, help="a joined model's folder: write its members instead")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if args.split is not None:
        if args.member or args.face_member:
            ap.error("--split takes no --member or --face-member")
        return split_folder(args.split, args.out)
    folders = args.member + args.face_member
    if not args.member:
        ap.error("at least one --member must give the kind (--face-member folders give their face only)")
    if len(folders) < 2:
        ap.error("an ensemble needs at least two --member or --face-member folders")
    if args.cascade is not None and (len(args.member) < 2 or len(args.face_member) < 2 or args.cascade <= 0):
        ap.error("--cascade needs a positive margin and at least two --member and two --face-member folders")
    for folder in folders:
        missing = [f for f in ("coin_face.onnx", "coin_face.json") if not (folder / f).is_file()]
        if missing:
            print(f"error: {folder} has no {' and no '.join(missing)} (train it with tools/train_coins.py)", file=sys.stderr)
            return 2
    metas = [json.loads((m / "coin_face.json").read_text()) for m in folders]
    for folder, meta in zip(folders[1:], metas[1:]):
        differ = [k for k in SAMPLING_KEYS if meta.get(k) != metas[0].get(k)]
        if differ:
            print(f"error: {folder} differs from {folders[0]} in {', '.join(differ)}", file=sys.stderr)
            return 2
    model = join([onnx.load(str(m / "coin_face.onnx")) for m in folders], face_only=len(args.face_member))
    args.out.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(args.out / "coin_face.onnx"))
    meta = dict(metas[0])
    meta["members"] = [
        {k: m[k] for k in ("command", "trained_on", "validation", "width", "epochs", "seed") if k in m}
        | ({"face_only": True} if i >= len(args.member) else {})
        for i, m in enumerate(metas)
    ]
    for k in ("command", "trained_on", "validation", "width", "epochs", "seed", "teacher", "teacher_weight"):
        meta.pop(k, None)
    meta["trained_on"] = "; ".join(dict.fromkeys(part for m in metas for part in m["trained_on"].split("; ")))
    meta["validation"] = list(dict.fromkeys(v for m in metas for v in m["validation"]))
    if args.cascade is not None:
        halves = (("first", args.member), ("more", args.face_member))
        for half, group in halves:
            onnx.save(join([onnx.load(str(m / "coin_face.onnx")) for m in group]), str(args.out / f"coin_face_{half}.onnx"))
        meta["cascade"] = {"first": "coin_face_first.onnx", "more": "coin_face_more.onnx", "margin": args.cascade}
        print(f"wrote {args.out / 'coin_face_first.onnx'} and {args.out / 'coin_face_more.onnx'} (cascade margin {args.cascade:g})")
    (args.out / "coin_face.json").write_text(json.dumps(meta, indent=1) + "\n")
    face_only = f", {len(args.face_member)} of them giving their face only" if args.face_member else ""
    print(f"wrote {args.out / 'coin_face.onnx'} ({len(folders)} members{face_only})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
