#!/usr/bin/env python3
"""Lists the classes of the PyTorch (and Triton) modules whose instances cache
entries pickle, for the pickle policy (docs/SECURITY.md, "Pickle policy").

Reads the source with Python's ast: nothing is imported or run. For a new
PyTorch release, from a checkout of its tag (and of the Triton it pins):

    scripts/pytorch-inventory.py inventory ~/src/pytorch --label 2.12 \\
        --triton ~/src/triton --merge tests/data/pytorch-inventory/classes.tsv \\
        > /tmp/classes.tsv && mv /tmp/classes.tsv tests/data/pytorch-inventory/classes.tsv

then build and run tst_pickle_policy: it fails naming every class that has no
row in engine/src/safety/pickle_policy_table.cpp. Add a row for each (allowed,
with its role, or refused, with why), then regenerate the table in
docs/SECURITY.md:

    scripts/pytorch-inventory.py markdown engine/src/safety/pickle_policy_table.cpp

and paste it under "## Pickle policy" (tst_pickle_policy checks every row is there).

Only module-level definitions are listed (classes under `if TYPE_CHECKING:`
are never instantiated); enums and NamedTuples made by a call
(`OutputType = Enum("OutputType", ...)`) are listed too.

Columns: module, class, kind (dataclass/enum/namedtuple/class/function),
has_setstate_or_reduce (y/n: defines __setstate__, __reduce__ or
__reduce_ex__, or is decorated by dataclass_with_cached_hash, which installs a
__reduce__), versions (the labels of every checkout the class was seen in).
"""

import argparse
import ast
import re
import sys
from pathlib import Path

# Modules whose classes an FX graph, AOTAutograd, PGO or Triton-bundle entry
# can name, relative to the checkout root.
TORCH_MODULES = [
    "torch/_dynamo/source.py",
    "torch/_guards.py",
    "torch/_dynamo/pgo.py",
    "torch/_functorch/_aot_autograd/schemas.py",
    "torch/_functorch/_aot_autograd/descriptors.py",
    "torch/_functorch/_aot_autograd/aot_autograd_result.py",
    "torch/_functorch/_aot_autograd/autograd_cache.py",
    "torch/_functorch/_aot_autograd/runtime_wrappers.py",
    "torch/_inductor/output_code.py",
    "torch/_inductor/triton_bundler.py",
    "torch/_inductor/runtime/hints.py",
    "torch/_inductor/runtime/triton_heuristics.py",
    "torch/_inductor/runtime/autotune_cache.py",
    "torch/_inductor/runtime/coordinate_descent_tuner.py",
    "torch/_inductor/runtime/static_cuda_launcher.py",
    "torch/_inductor/runtime/static_triton_launcher.py",
    "torch/_inductor/cudagraph_utils.py",
    "torch/_inductor/metrics.py",
    "torch/_inductor/utils.py",
    "torch/utils/_ordered_set.py",
]
TRITON_MODULES = [
    "python/triton/runtime/autotuner.py",
    "python/triton/runtime/jit.py",
]
# Module-level functions that pickles name (reducers that rebuild objects).
FUNCTION_PATTERN = re.compile(r"^(reduce_\w*graph_module)$")
HEADER = "module\tclass\tkind\thas_setstate_or_reduce\tversions"


def module_name(relative):
    path = relative[len("python/"):] if relative.startswith("python/") else relative
    return path[: -len(".py")].replace("/", ".")


def decorator_names(node):
    names = []
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.append(ast.unparse(target))
    return names


def kind_of(node):
    decorators = decorator_names(node)
    bases = [ast.unparse(base) for base in node.bases]
    if any(d.endswith("dataclass") or d.endswith("dataclass_with_cached_hash") for d in decorators):
        return "dataclass"
    if any(b.split(".")[-1] in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag") for b in bases):
        return "enum"
    if any(b.split(".")[-1] == "NamedTuple" for b in bases):
        return "namedtuple"
    return "class"


def has_setstate_or_reduce(node):
    if any(d.endswith("dataclass_with_cached_hash") for d in decorator_names(node)):
        return True
    return any(
        isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        and item.name in ("__setstate__", "__reduce__", "__reduce_ex__")
        for item in node.body
    )


def functional_kind(node):
    """The kind of a class made by a call at module level: X = Enum("X", ...),
    X = namedtuple("X", ...), X = NamedTuple("X", ...) (schemas.OutputType)."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call)):
        return None
    callee = ast.unparse(node.value.func).split(".")[-1]
    args = node.value.args
    if not (args and isinstance(args[0], ast.Constant) and args[0].value == node.targets[0].id):
        return None
    if callee in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"):
        return "enum"
    if callee in ("namedtuple", "NamedTuple"):
        return "namedtuple"
    return None


def classes_in(path, module):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            yield module, node.name, kind_of(node), "y" if has_setstate_or_reduce(node) else "n"
        elif isinstance(node, ast.FunctionDef) and FUNCTION_PATTERN.match(node.name):
            yield module, node.name, "function", "n"
        elif kind := functional_kind(node):
            yield module, node.targets[0].id, kind, "n"


def read_tsv(path, comments):
    rows = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines()[1:]:
        if line.startswith("#"):
            comments.append(line)
        elif line:
            module, name, kind, special, versions = line.split("\t")
            rows[(module, name)] = [kind, special, versions.split(",")]
    return rows


def inventory(args):
    comments = []
    rows = read_tsv(args.merge, comments) if args.merge else {}
    found = 0
    for root, modules in ((args.root, TORCH_MODULES), (args.triton, TRITON_MODULES)):
        if root is None:
            continue
        for relative in modules:
            path = Path(root) / relative
            if not path.exists():
                continue  # not in this release
            for module, name, kind, special in classes_in(path, module_name(relative)):
                found += 1
                row = rows.setdefault((module, name), [kind, special, []])
                row[0], row[1] = kind, "y" if "y" in (row[1], special) else "n"
                if args.label not in row[2]:
                    row[2].append(args.label)
    if found == 0:
        sys.exit(f"no inventoried module found under {args.root}")
    print(HEADER)
    for comment in comments:
        print(comment)
    for (module, name), (kind, special, versions) in sorted(rows.items()):
        print(f"{module}\t{name}\t{kind}\t{special}\t{','.join(versions)}")


ROW = re.compile(
    r'(?P<wrap>both|pgo_only|value_only|precompile_only)?\(?\s*(?P<role>built|record|enumeration|callable|constant|refused|row)\('
    r'(?P<module>k\w+|"[^"]*"),\s*"(?P<name>[^"]+)",\s*(?:GlobalRole::(?P<grole>\w+),\s*)?'
    r'(?:CallRule::\w+,\s*)?"(?P<versions>[^"]*)",\s*(?P<why>"(?:[^"\\]|\\.)*"|k\w+)',
    re.S,
)
ROLES = {"built": "built", "record": "record", "enumeration": "enum", "callable": "callable",
         "constant": "constant", "refused": "refused", "CodePath": "code path"}


def markdown(args):
    text = Path(args.table).read_text(encoding="utf-8")
    constants = dict(re.findall(r'constexpr std::string_view (k\w+) =\s*((?:"[^"]*"\s*)+);', text))

    def value(token):
        token = constants.get(token, token)
        return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', token))

    print("| module | name | role | in | versions | why |")
    print("| --- | --- | --- | --- | --- | --- |")
    body = text[text.index("kRows[] = {"):]
    for match in ROW.finditer(body):
        role = ROLES[match["grole"] or match["role"]]
        where = {"both": "entry, pgo, value, precompile", "pgo_only": "pgo",
                 "value_only": "value", "precompile_only": "precompile"}.get(
                     match["wrap"], "entry, precompile")
        print(f"| `{value(match['module'])}` | `{match['name']}` | {role} | {where} "
              f"| {match['versions']} | {value(match['why'])} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    inv = commands.add_parser("inventory", help="list the classes of a checkout as TSV")
    inv.add_argument("root", help="a PyTorch checkout")
    inv.add_argument("--triton", help="a Triton checkout")
    inv.add_argument("--label", required=True, help="the version to record, e.g. 2.11")
    inv.add_argument("--merge", help="an existing classes.tsv to add this version to")
    inv.set_defaults(run=inventory)
    md = commands.add_parser("markdown", help="the policy table as Markdown, for docs/SECURITY.md")
    md.add_argument("table", help="engine/src/safety/pickle_policy_table.cpp")
    md.set_defaults(run=markdown)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
