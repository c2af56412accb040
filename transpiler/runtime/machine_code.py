"""LLVM-dialect module -> object files, on several threads: what MLIR's ExecutionEngine did on one.

The ExecutionEngine translates the module to LLVM IR, adds a packed wrapper (`_mlir_f(void **)`) for each external
function, runs LLVM's `default<O{n}>` pipeline and generates code, all on the calling thread: for GPT-2 ~1.8 s of
the cold first call (docs/performance.md, "Compile time"). Here the same steps go through LLVM's C API (the
`libLLVM.so` that MLIR's bindings load) with the Python lock released, and the work after inlining runs in parallel:

1. translation (`mlirTranslateModuleToLLVMIR`), the host's triple and data layout, the packed wrappers;
2. the first half of `default<O3>` (`SIMPLIFY`: inlining and the interprocedural passes) on the whole module, so
   that every inlining decision is the one the whole module gets;
3. the module split by function into parts of about equal size, each part parsed into its own LLVM context from
   the module's bitcode (a function another part defines becomes a declaration with all its attributes,
   `available_externally` then `elim-avail-extern`), and on one thread per part: the second half of `default<O3>`
   (`OPTIMIZE`: vectorizers, unrolling, function by function, no inlining) and code generation;
4. one object file per part, linked together by `objects.LinkedObject`.

Steps 2 and 3 together run exactly `default<O3>` (the pass list as `opt -O3 -print-pipeline-passes` prints it for
this LLVM: `PIPELINE_LLVM_VERSION`); a test checks that they give the same object as `default<O3>` in one part. A
function's code does not depend on which part it is in: the passes after the split work on one function at a time.
Other optimization levels, or another LLVM, run `default<O{n}>` in one part.
"""
from __future__ import annotations

import ctypes
import functools
import os
import threading

import mlir

from . import objects

_c_p = ctypes.c_void_p
_u = ctypes.c_uint
_size = ctypes.c_size_t

_SIGNATURES = {
    "LLVMGetVersion": (None, [ctypes.POINTER(_u)] * 3),
    "LLVMContextCreate": (_c_p, []),
    "LLVMContextDispose": (None, [_c_p]),
    "LLVMDisposeModule": (None, [_c_p]),
    "LLVMGetDefaultTargetTriple": (_c_p, []),
    "LLVMGetTargetFromTriple": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_c_p), ctypes.POINTER(_c_p)]),
    "LLVMCreateTargetMachine": (_c_p, [_c_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                       ctypes.c_int, ctypes.c_int]),
    "LLVMDisposeTargetMachine": (None, [_c_p]),
    "LLVMCreateTargetDataLayout": (_c_p, [_c_p]),
    "LLVMDisposeTargetData": (None, [_c_p]),
    "LLVMSetModuleDataLayout": (None, [_c_p, _c_p]),
    "LLVMGetTargetMachineTriple": (_c_p, [_c_p]),
    "LLVMSetTarget": (None, [_c_p, ctypes.c_char_p]),
    "LLVMCreatePassBuilderOptions": (_c_p, []),
    "LLVMDisposePassBuilderOptions": (None, [_c_p]),
    "LLVMRunPasses": (_c_p, [_c_p, ctypes.c_char_p, _c_p, _c_p]),
    "LLVMTargetMachineEmitToMemoryBuffer": (ctypes.c_int, [_c_p, _c_p, ctypes.c_int, ctypes.POINTER(_c_p),
                                                           ctypes.POINTER(_c_p)]),
    "LLVMWriteBitcodeToMemoryBuffer": (_c_p, [_c_p]),
    "LLVMParseBitcodeInContext2": (ctypes.c_int, [_c_p, _c_p, ctypes.POINTER(_c_p)]),
    "LLVMCreateMemoryBufferWithMemoryRange": (_c_p, [_c_p, _size, ctypes.c_char_p, ctypes.c_int]),
    "LLVMGetBufferStart": (_c_p, [_c_p]),
    "LLVMGetBufferSize": (_size, [_c_p]),
    "LLVMDisposeMemoryBuffer": (None, [_c_p]),
    "LLVMGetFirstFunction": (_c_p, [_c_p]),
    "LLVMGetNextFunction": (_c_p, [_c_p]),
    "LLVMGetNamedFunction": (_c_p, [_c_p, ctypes.c_char_p]),
    "LLVMIsDeclaration": (ctypes.c_int, [_c_p]),
    "LLVMGetValueName2": (_c_p, [_c_p, ctypes.POINTER(_size)]),
    "LLVMGetLinkage": (ctypes.c_int, [_c_p]),
    "LLVMSetLinkage": (None, [_c_p, ctypes.c_int]),
    "LLVMSetVisibility": (None, [_c_p, ctypes.c_int]),
    "LLVMGetFirstUse": (_c_p, [_c_p]),
    "LLVMGetNextUse": (_c_p, [_c_p]),
    "LLVMGetUser": (_c_p, [_c_p]),
    "LLVMIsAInstruction": (_c_p, [_c_p]),
    "LLVMGetInstructionParent": (_c_p, [_c_p]),
    "LLVMGetBasicBlockParent": (_c_p, [_c_p]),
    "LLVMGetFirstBasicBlock": (_c_p, [_c_p]),
    "LLVMGetNextBasicBlock": (_c_p, [_c_p]),
    "LLVMGetFirstInstruction": (_c_p, [_c_p]),
    "LLVMGetNextInstruction": (_c_p, [_c_p]),
    "LLVMGetFirstGlobal": (_c_p, [_c_p]),
    "LLVMGetNextGlobal": (_c_p, [_c_p]),
    "LLVMIsGlobalConstant": (ctypes.c_int, [_c_p]),
    "LLVMGlobalGetValueType": (_c_p, [_c_p]),
    "LLVMCountParamTypes": (_u, [_c_p]),
    "LLVMGetParamTypes": (None, [_c_p, ctypes.POINTER(_c_p)]),
    "LLVMGetReturnType": (_c_p, [_c_p]),
    "LLVMGetTypeKind": (ctypes.c_int, [_c_p]),
    "LLVMGetModuleContext": (_c_p, [_c_p]),
    "LLVMVoidTypeInContext": (_c_p, [_c_p]),
    "LLVMInt64TypeInContext": (_c_p, [_c_p]),
    "LLVMPointerTypeInContext": (_c_p, [_c_p, _u]),
    "LLVMFunctionType": (_c_p, [_c_p, ctypes.POINTER(_c_p), _u, ctypes.c_int]),
    "LLVMAddFunction": (_c_p, [_c_p, ctypes.c_char_p, _c_p]),
    "LLVMGetParam": (_c_p, [_c_p, _u]),
    "LLVMAppendBasicBlockInContext": (_c_p, [_c_p, _c_p, ctypes.c_char_p]),
    "LLVMCreateBuilderInContext": (_c_p, [_c_p]),
    "LLVMPositionBuilderAtEnd": (None, [_c_p, _c_p]),
    "LLVMDisposeBuilder": (None, [_c_p]),
    "LLVMConstInt": (_c_p, [_c_p, ctypes.c_ulonglong, ctypes.c_int]),
    "LLVMBuildGEP2": (_c_p, [_c_p, _c_p, _c_p, ctypes.POINTER(_c_p), _u, ctypes.c_char_p]),
    "LLVMBuildLoad2": (_c_p, [_c_p, _c_p, _c_p, ctypes.c_char_p]),
    "LLVMBuildStore": (_c_p, [_c_p, _c_p, _c_p]),
    "LLVMBuildCall2": (_c_p, [_c_p, _c_p, _c_p, ctypes.POINTER(_c_p), _u, ctypes.c_char_p]),
    "LLVMBuildRetVoid": (_c_p, [_c_p]),
}

_VOID_TYPE_KIND = 0
_EXTERNAL, _AVAILABLE_EXTERNALLY, _INTERNAL, _PRIVATE = 0, 1, 8, 9
_HIDDEN = 1
_OBJECT_FILE = 1
_RELOC_DEFAULT, _CODE_MODEL_JIT_DEFAULT = 0, 1
# The ExecutionEngine generated code at LLVM's default level (CodeGenOptLevel::Default, whatever its opt_level):
# the same here, so that one part gives the very object the ExecutionEngine gave (tests/test_machine_code.py).
_CODEGEN_LEVEL = 2

# `default<O3>` of LLVM 22.1 (`opt -O3 -print-pipeline-passes`), cut after the interprocedural passes. SIMPLIFY runs
# on the whole module, OPTIMIZE on each part (function passes, then module passes that only drop or merge globals).
PIPELINE_LLVM_VERSION = "22.1.8"
_SIMPLIFYCFG = ("simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;{};no-switch-to-arithmetic;"
                "no-switch-to-lookup;keep-loops;no-hoist-common-insts;no-hoist-loads-stores-with-cond-faulting;"
                "no-sink-common-insts;speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>")
_INSTCOMBINE = "instcombine<max-iterations=1;no-verify-fixpoint>"
SIMPLIFY = (
    "memprof-remove-attributes,annotation2metadata,forceattrs,inferattrs,coro-early,"
    f"function<eager-inv>(ee-instrument<>,lower-expect,{_SIMPLIFYCFG.format('no-switch-range-to-icmp')},"
    "sroa<modify-cfg>,early-cse<>,callsite-splitting),openmp-opt,ipsccp,called-value-propagation,globalopt,"
    f"function<eager-inv>(mem2reg,{_INSTCOMBINE},{_SIMPLIFYCFG.format('switch-range-to-icmp')}),"
    "always-inline,require<globals-aa>,function(invalidate<aa>),require<profile-summary>,"
    "cgscc(devirt<4>(inline,function-attrs<skip-non-recursive-function-attrs>,argpromotion,openmp-opt-cgscc,"
    "function<eager-inv;no-rerun>(sroa<modify-cfg>,early-cse<memssa>,speculative-execution<only-if-divergent-target>,"
    f"jump-threading,correlated-propagation,{_SIMPLIFYCFG.format('switch-range-to-icmp')},{_INSTCOMBINE},"
    f"aggressive-instcombine,libcalls-shrinkwrap,tailcallelim,{_SIMPLIFYCFG.format('switch-range-to-icmp')},"
    "reassociate,constraint-elimination,loop-mssa(loop-instsimplify,loop-simplifycfg,licm<no-allowspeculation>,"
    "loop-rotate<header-duplication;no-prepare-for-lto>,licm<allowspeculation>,"
    f"simple-loop-unswitch<nontrivial;trivial>),{_SIMPLIFYCFG.format('switch-range-to-icmp')},{_INSTCOMBINE},"
    "loop(loop-idiom,indvars,extra-simple-loop-unswitch-passes,loop-deletion,loop-unroll-full),sroa<modify-cfg>,"
    "vector-combine,mldst-motion<no-split-footer-bb>,gvn<>,sccp,bdce,"
    f"{_INSTCOMBINE},jump-threading,correlated-propagation,adce,memcpyopt,dse,move-auto-init,"
    "loop-mssa(licm<allowspeculation>),coro-elide,"
    "simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;switch-to-arithmetic;"
    "no-switch-to-lookup;keep-loops;hoist-common-insts;no-hoist-loads-stores-with-cond-faulting;sink-common-insts;"
    f"speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>,{_INSTCOMBINE}),function-attrs,"
    "function(require<should-not-run-function-passes>),coro-split,coro-annotation-elide)),"
    "deadargelim,coro-cleanup,globalopt,globaldce,elim-avail-extern,rpo-function-attrs,recompute-globalsaa")
OPTIMIZE = (
    "function<eager-inv>(drop-unnecessary-assumes,float2int,lower-constant-intrinsics,chr,"
    "loop(loop-rotate<header-duplication;no-prepare-for-lto>,loop-deletion),loop-distribute,inject-tli-mappings,"
    "loop-vectorize<no-interleave-forced-only;no-vectorize-forced-only;>,drop-unnecessary-assumes,infer-alignment,"
    f"loop-load-elim,{_INSTCOMBINE},"
    "simplifycfg<bonus-inst-threshold=1;forward-switch-cond;switch-range-to-icmp;switch-to-arithmetic;"
    "switch-to-lookup;no-keep-loops;hoist-common-insts;no-hoist-loads-stores-with-cond-faulting;sink-common-insts;"
    "speculate-blocks;simplify-cond-branch;no-speculate-unpredictables>,"
    f"slp-vectorizer,vector-combine,{_INSTCOMBINE},loop-unroll<O3>,transform-warning,sroa<preserve-cfg>,"
    f"infer-alignment,{_INSTCOMBINE},loop-mssa(licm<allowspeculation>),alignment-from-assumptions,loop-sink,"
    "instsimplify,div-rem-pairs,tailcallelim,"
    "simplifycfg<bonus-inst-threshold=1;no-forward-switch-cond;switch-range-to-icmp;switch-to-arithmetic;"
    "no-switch-to-lookup;keep-loops;no-hoist-common-insts;hoist-loads-stores-with-cond-faulting;"
    "no-sink-common-insts;speculate-blocks;simplify-cond-branch;speculate-unpredictables>),"
    "alloc-token,globaldce,constmerge,cg-profile,rel-lookup-table-converter,function(annotation-remarks),verify")

_lib = None
_capi = None
_lock = threading.Lock()


def _libraries():
    """(libLLVM, MLIR's C API library), their signatures declared once."""
    global _lib, _capi
    with _lock:
        if _lib is None:
            lib = objects.llvm_library()
            for name, (restype, argtypes) in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = restype, argtypes
            capi = ctypes.CDLL(os.path.join(list(mlir.__path__)[0], "_mlir_libs", "libMLIRPythonCAPI.so"))
            capi.mlirTranslateModuleToLLVMIR.restype = _c_p
            capi.mlirTranslateModuleToLLVMIR.argtypes = [_c_p, _c_p]
            _lib, _capi = lib, capi
    return _lib, _capi


class CompileError(RuntimeError):
    """LLVM refused the module (a compiler bug: the caller reports it at the compiled function)."""


def _message(lib, pointer) -> str:
    text = ctypes.string_at(pointer).decode(errors="replace")
    lib.LLVMDisposeMessage(pointer)
    return text


def _check_error(lib, err) -> None:
    if err:
        raise CompileError(objects.error_text(lib, err))


@functools.cache
def llvm_version() -> str:
    """The linked libLLVM's version (once per process: every compilation asks)."""
    lib = _libraries()[0]
    major, minor, patch = _u(), _u(), _u()
    lib.LLVMGetVersion(ctypes.byref(major), ctypes.byref(minor), ctypes.byref(patch))
    return f"{major.value}.{minor.value}.{patch.value}"


def _name(lib, value) -> str:
    length = _size()
    return ctypes.string_at(lib.LLVMGetValueName2(value, ctypes.byref(length)), length.value).decode()


def _functions(lib, module):
    fn = lib.LLVMGetFirstFunction(module)
    while fn:
        yield fn
        fn = lib.LLVMGetNextFunction(fn)


class _TargetMachine:
    """The host's target machine, as the ExecutionEngine makes it (JITTargetMachineBuilder::detectHost): this CPU
    and its features, JIT code model and relocations, code generation at LLVM's default level whatever the
    optimization level (_CODEGEN_LEVEL: the ExecutionEngine's objects, bit for bit)."""

    def __init__(self):
        lib = self.lib = _libraries()[0]
        message = lib.LLVMGetDefaultTargetTriple()
        triple = ctypes.string_at(message)
        lib.LLVMDisposeMessage(message)
        target, error = _c_p(), _c_p()
        if lib.LLVMGetTargetFromTriple(triple, ctypes.byref(target), ctypes.byref(error)):
            raise CompileError(_message(lib, error))
        cpu, features = objects.host_cpu_parts()
        self.tm = lib.LLVMCreateTargetMachine(target, triple, cpu.encode(), features.encode(),
                                              _CODEGEN_LEVEL, _RELOC_DEFAULT, _CODE_MODEL_JIT_DEFAULT)
        if not self.tm:
            raise CompileError("LLVM could not make a target machine for this CPU")

    def prepare(self, module) -> None:
        """The module's triple and data layout, the target machine's."""
        lib = self.lib
        layout = lib.LLVMCreateTargetDataLayout(self.tm)
        lib.LLVMSetModuleDataLayout(module, layout)
        lib.LLVMDisposeTargetData(layout)
        triple = lib.LLVMGetTargetMachineTriple(self.tm)
        lib.LLVMSetTarget(module, ctypes.string_at(triple))
        lib.LLVMDisposeMessage(triple)

    def run_passes(self, module, passes: str) -> None:
        lib = self.lib
        options = lib.LLVMCreatePassBuilderOptions()
        try:
            _check_error(lib, lib.LLVMRunPasses(module, passes.encode(), self.tm, options))
        finally:
            lib.LLVMDisposePassBuilderOptions(options)

    def emit(self, module) -> bytes:
        lib = self.lib
        error, buffer = _c_p(), _c_p()
        if lib.LLVMTargetMachineEmitToMemoryBuffer(self.tm, module, _OBJECT_FILE, ctypes.byref(error),
                                                   ctypes.byref(buffer)):
            raise CompileError(_message(lib, error))
        return _buffer_bytes(lib, buffer)

    def __del__(self):
        tm, self.tm = getattr(self, "tm", None), None
        if tm:
            self.lib.LLVMDisposeTargetMachine(tm)


def _buffer_bytes(lib, buffer) -> bytes:
    try:
        return ctypes.string_at(lib.LLVMGetBufferStart(buffer), lib.LLVMGetBufferSize(buffer))
    finally:
        lib.LLVMDisposeMemoryBuffer(buffer)


def _add_packed_wrappers(lib, module) -> None:
    """`void _mlir_f(void **args)` for each external function `f` with a body, as the ExecutionEngine writes it:
    argument i is loaded from the pointer args[i], the result (if any) stored through args[n]."""
    context = lib.LLVMGetModuleContext(module)
    ptr, i64 = lib.LLVMPointerTypeInContext(context, 0), lib.LLVMInt64TypeInContext(context)
    wrapper_type = lib.LLVMFunctionType(lib.LLVMVoidTypeInContext(context), (_c_p * 1)(ptr), 1, 0)
    targets = [fn for fn in _functions(lib, module)
               if not lib.LLVMIsDeclaration(fn) and lib.LLVMGetLinkage(fn) not in (_INTERNAL, _PRIVATE)]
    builder = lib.LLVMCreateBuilderInContext(context)
    try:
        for fn in targets:
            fn_type = lib.LLVMGlobalGetValueType(fn)
            count = lib.LLVMCountParamTypes(fn_type)
            param_types = (_c_p * max(count, 1))()
            lib.LLVMGetParamTypes(fn_type, param_types)
            wrapper = lib.LLVMAddFunction(module, b"_mlir_" + _name(lib, fn).encode(), wrapper_type)
            lib.LLVMPositionBuilderAtEnd(builder, lib.LLVMAppendBasicBlockInContext(context, wrapper, b""))
            packed = lib.LLVMGetParam(wrapper, 0)

            def slot(index):
                address = lib.LLVMBuildGEP2(builder, ptr, packed, (_c_p * 1)(lib.LLVMConstInt(i64, index, 0)), 1, b"")
                return lib.LLVMBuildLoad2(builder, ptr, address, b"")
            args = [lib.LLVMBuildLoad2(builder, param_types[i], slot(i), b"") for i in range(count)]
            result = lib.LLVMBuildCall2(builder, fn_type, fn, (_c_p * max(count, 1))(*args), count, b"")
            if lib.LLVMGetTypeKind(lib.LLVMGetReturnType(fn_type)) != _VOID_TYPE_KIND:
                lib.LLVMBuildStore(builder, result, slot(count))
            lib.LLVMBuildRetVoid(builder)
    finally:
        lib.LLVMDisposeBuilder(builder)


def _sizes_and_users(lib, module) -> tuple[dict, dict]:
    """(name -> instruction count of each defined function, name -> names of the functions that use it; None where
    something other than an instruction uses it)."""
    sizes, users = {}, {}
    for fn in _functions(lib, module):
        name = _name(lib, fn)
        if not lib.LLVMIsDeclaration(fn):
            count = 0
            block = lib.LLVMGetFirstBasicBlock(fn)
            while block:
                inst = lib.LLVMGetFirstInstruction(block)
                while inst:
                    count += 1
                    inst = lib.LLVMGetNextInstruction(inst)
                block = lib.LLVMGetNextBasicBlock(block)
            sizes[name] = count
        names: set | None = set()
        use = lib.LLVMGetFirstUse(fn)
        while use:
            user = lib.LLVMGetUser(use)
            if not lib.LLVMIsAInstruction(user):
                names = None
                break
            names.add(_name(lib, lib.LLVMGetBasicBlockParent(lib.LLVMGetInstructionParent(user))))
            use = lib.LLVMGetNextUse(use)
        users[name] = names
    return sizes, users


def _has_mutable_local_globals(lib, module) -> bool:
    """A module-local variable that code writes cannot be copied into each part (each would write its own)."""
    g = lib.LLVMGetFirstGlobal(module)
    while g:
        if not lib.LLVMIsGlobalConstant(g) and lib.LLVMGetLinkage(g) in (_INTERNAL, _PRIVATE):
            return True
        g = lib.LLVMGetNextGlobal(g)
    return False


def partition(sizes: dict, parts: int) -> list:
    """Function names in `parts` groups of about equal total size: the largest first, each to the smallest group."""
    groups = [[0, i, []] for i in range(parts)]
    for name in sorted(sizes, key=lambda n: (-sizes[n], n)):
        group = min(groups, key=lambda g: (g[0], g[1]))
        group[0] += sizes[name]
        group[2].append(name)
    return [g[2] for g in groups if g[2]]


# Below this many instructions (after inlining) one thread compiles the module: a second part costs a bitcode
# round trip and a context (a few ms), worth it only for modules whose optimization and code generation take ~0.1 s.
SPLIT_MIN_INSTRUCTIONS = 4000


def default_parts() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


def _operation_pointer(module) -> int:
    """The MlirOperation (one pointer) of a Python MLIR module, for MLIR's C API."""
    capsule = module.operation._CAPIPtr
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype, api.PyCapsule_GetName.argtypes = ctypes.c_char_p, [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = _c_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule))


def compile_module(llvm_module, opt_level: int = 3, parts: int | None = None) -> list:
    """Object files (bytes) of an LLVM-dialect MLIR module, in `parts` parts compiled in parallel (default: one per
    core, at most 4; fewer for small modules)."""
    lib, capi = _libraries()
    operation = _operation_pointer(llvm_module)
    machine = _TargetMachine()
    context = lib.LLVMContextCreate()
    module = None
    try:
        module = capi.mlirTranslateModuleToLLVMIR(operation, context)
        if not module:
            raise CompileError("could not translate the module to LLVM IR")
        machine.prepare(module)
        _add_packed_wrappers(lib, module)
        split = opt_level == 3 and llvm_version() == PIPELINE_LLVM_VERSION
        if not split:
            machine.run_passes(module, f"default<O{min(max(opt_level, 0), 3)}>")
            return [machine.emit(module)]
        machine.run_passes(module, SIMPLIFY)
        sizes, users = _sizes_and_users(lib, module)
        wanted = default_parts() if parts is None else max(1, parts)
        if wanted == 1 or sum(sizes.values()) < SPLIT_MIN_INSTRUCTIONS or _has_mutable_local_globals(lib, module):
            machine.run_passes(module, OPTIMIZE)
            return [machine.emit(module)]
        groups = partition(sizes, wanted)
        owner = {name: k for k, group in enumerate(groups) for name in group}
        shared = {name for name, who in users.items() if name in owner and (
            who is None or any(owner.get(user, -1) != owner[name] for user in who))}
        bitcode = lib.LLVMWriteBitcodeToMemoryBuffer(module)
        try:
            data = ctypes.string_at(lib.LLVMGetBufferStart(bitcode), lib.LLVMGetBufferSize(bitcode))
        finally:
            lib.LLVMDisposeMemoryBuffer(bitcode)
    finally:
        if module:
            lib.LLVMDisposeModule(module)
        lib.LLVMContextDispose(context)
    results: list = [None] * len(groups)
    errors: list = []

    def compile_part(k):
        try:
            results[k] = _compile_part(lib, data, set(groups[k]), owner, shared, defines_globals=k == 0)
        except BaseException as e:   # (re-raised on the calling thread)
            errors.append(e)
    threads = [threading.Thread(target=compile_part, args=(k,), name=f"transpiler-llvm-{k}")
               for k in range(1, len(groups))]
    for t in threads:
        t.start()
    compile_part(0)
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def _compile_part(lib, bitcode: bytes, mine: set, owner: dict, shared: set, defines_globals: bool) -> bytes:
    """One part, in its own LLVM context: the functions of `mine` defined, those of other parts declared (with
    their attributes: elim-avail-extern keeps them), functions used across parts external and hidden. Module-local
    constants are copied into every part that uses them; variables visible outside the module are defined by the
    first part only (`defines_globals`), declared by the others."""
    machine = _TargetMachine()
    context = lib.LLVMContextCreate()
    module = _c_p()
    try:
        buffer = lib.LLVMCreateMemoryBufferWithMemoryRange(bitcode, len(bitcode), b"kernel.bc", 0)
        try:
            if lib.LLVMParseBitcodeInContext2(context, buffer, ctypes.byref(module)):
                raise CompileError("could not read back the module's bitcode")
        finally:
            lib.LLVMDisposeMemoryBuffer(buffer)
        for fn in list(_functions(lib, module)):
            name = _name(lib, fn)
            if name in shared:
                lib.LLVMSetLinkage(fn, _EXTERNAL)
                lib.LLVMSetVisibility(fn, _HIDDEN)
            if name in owner and name not in mine:
                lib.LLVMSetLinkage(fn, _AVAILABLE_EXTERNALLY)
        if not defines_globals:
            g = lib.LLVMGetFirstGlobal(module)
            while g:
                if not lib.LLVMIsDeclaration(g) and lib.LLVMGetLinkage(g) not in (_INTERNAL, _PRIVATE):
                    lib.LLVMSetLinkage(g, _AVAILABLE_EXTERNALLY)
                g = lib.LLVMGetNextGlobal(g)
        machine.run_passes(module, "elim-avail-extern," + OPTIMIZE)
        return machine.emit(module)
    finally:
        if module:
            lib.LLVMDisposeModule(module)
        lib.LLVMContextDispose(context)
