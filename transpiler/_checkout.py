"""One import name for the library code (mean, var, nn, gpt2: Python the compiler compiles like user code), from a
checkout and from the installed wheel: `transpiler.stdlib`.

The wheel ships the repository's top-level stdlib/ folder as transpiler/stdlib/ (pyproject.toml), since a top-level
`stdlib` package would clash on a user's path. A checkout has no transpiler/stdlib/: this registers the top-level
folder under that name. transpiler/__init__.py imports this module first, before anything imports the library."""
import importlib.util
import os
import sys


def _register_stdlib(package_name: str) -> None:
    package = sys.modules[package_name]
    here = os.path.dirname(os.path.abspath(package.__file__))
    folder = os.path.join(os.path.dirname(here), "stdlib")
    name = f"{package_name}.stdlib"
    if os.path.isdir(os.path.join(here, "stdlib")) or name in sys.modules:
        return   # installed from the wheel (or already registered)
    spec = importlib.util.spec_from_file_location(name, os.path.join(folder, "__init__.py"),
                                                  submodule_search_locations=[folder])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    package.stdlib = module   # as the import system does for a submodule it loads itself


_register_stdlib(__package__)
