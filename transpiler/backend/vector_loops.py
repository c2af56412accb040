"""Loops vectorized before LLVM: math functions that look up tables held in vector registers, and vector_math's
expansions on two registers per iteration.

vector_math's expansions are scalar code that LLVM's loop vectorizer widens, and such code cannot look up a table in
registers (AVX-512's `vpermi2ps`): a table load stays a scalar load per element, and a gather costs more on Zen 4
than a whole function. NumPy's SVML loops evaluate one short polynomial per interval of the argument with
coefficients from such tables, and no division. A vector function that LLVM's vectorizer calls in place of the
scalar one (`vector-function-abi-variant`) reloads its tables on every call and makes the caller spill: it was no
faster (docs/performance.md). So the innermost loops that compute such a function are vectorized here, after the
loop passes (loops.py) and before OpenMP and LLVM: a loop of 16 lanes (float64 power: 32, _WIDTHS) whose body is
the loop's own body on vectors (`vector.load`/`vector.store`, the arithmetic on vectors, the function's vector
code, with its tables as vector constants that LLVM keeps in registers for the whole loop), then the scalar loop
for the last elements. The vector code uses AVX-512 intrinsics: vector_math leaves a function to this pass (marked
MARK) only when the kernels are compiled for a CPU with AVX-512 (`available`): float32 tanh (below) and float
power (vector_power.py). A loop this pass does not take (a reduction, an index computed from the loop's variable,
an index loaded from memory (a gather), a store into memory the loop may also read elsewhere, a strided innermost
dim) keeps the scalar expansion (`vector_math.expand`, run again after this pass).

Loops of vector_math's other expansions (sin, exp, log, arctan ..., their last op marked EXPANDED) are vectorized
here too, the same way, for AVX2 and AVX-512 targets (`expanded_available`), on two registers per iteration
(AVX-512: 32 float32 / 16 float64 lanes; AVX2: 16 / 8, _expanded_lanes): their bodies are arith ops (and fma, sqrt),
which the vector body takes as they are on vectors, so every lane computes what the scalar loop computes, the same
operations (bit for bit: tests/test_vector_loops.py). LLVM's vectorizer gives such a loop one register per
iteration (its body is too big for LLVM to interleave), and each iteration is then a chain of dependent operations
that successive iterations overlap only partly: the wider loops took 5-25% less time on Zen 5 (AVX-512), 5-35%
less as AVX2 code on the same CPU.

Correctness of the reordering: the vector loop reads 16 (32) elements of each array before writing them; that
equals the scalar loop only if no iteration reads what another one writes. Every store here goes to a buffer the
function allocated (memref.alloc: no argument and no other buffer is a view of it) or to the returned array the
call allocated for it (result_destination.py: no other argument is a view of it either), and every load from a
stored buffer reads the element that the same iteration stores (the same indices).

float32 tanh (`tanh_f32`): |x| in 30 intervals by its bits (four per octave from 2**-4 to 8, [0, 2**-4) and
[8, 9.5]), each a degree-6 polynomial in t = |x| - mid. The mids are float32 numbers whose tanh is within 2**-40
of a float32 (Gal's accurate tables), so the constant term is exact to far below an ulp; the other coefficients
were fitted by weighted least squares after rounding each earlier one to float32 (tools/fit_polynomials.py
TANH_TABLE32): at most 2**-28.2 of the result. Below 2**-4 the polynomial is tanh's series x - x**3/3 + 2x**5/15,
and x itself is added in the last rounding (`base`), so that small results keep their relative precision. Within 1
ulp (tests/test_vector_loops.py), no division: the loop takes 35 instructions per 16 elements, 9 of them table
lookups (`vpermt2ps`) and 10 register copies for them (the instruction overwrites a table operand).
"""
from __future__ import annotations

import functools
import os

import numpy as np
from mlir import ir
from mlir.dialects import arith, llvm, scf, vector

from . import target, vector_power
from .written_arguments import is_result_destination
from .erasing import erase_with_body

MARK = "transpiler.vector_loop"    # a math op left for `vectorize` by vector_math.expand
EXPANDED = "transpiler.expanded"   # the last op of a math op's expansion (vector_math.expand): its loop is vectorized
                                   # here too, two registers per iteration (_expanded_lanes)
WIDTH = 16         # lanes of a vector loop: one register of float32, two of float64 (two independent chains)
# lanes per (op, result type) where more pay: float64 power's loop is two polynomials in a row, a chain of dependent
# operations that the loop's iterations overlap only partly; in 32 lanes (four registers, four independent chains)
# it took 15-20% less time on Zen 5 (float32 power: the same time as in 16, so its scalar remainder stays short;
# docs/performance.md). A loop takes the fewest lanes of its ops (tanh_f32 is written for 16).
_WIDTHS = {("math.powf", "f64"): 32}
_NORMAL_ARGUMENTS = "transpiler.normal_arguments"     # vector_math._IN_DOMAIN: bases known positive normal finite

# (mid, c0, ..., c6) per interval of |x|: tanh(mid + t) ~ c0 + c1 t + ... + c6 t**6; index 0 is [0, 2**-4), then
# four intervals per octave, index 29 [8, 9.5]; 30 and 31 repeat 29 (a table of 32 floats is two registers)
TANH_TABLE32 = (
    (0.0, 0.0, 1.0, 0.0,
     -0.3333333432674408, 0.0, 0.13333334028720856, 0.0),
    (0.0703241303563118, 0.07020843029022217, 0.99507075548172, -0.06986295431852341,
     -0.32569143176078796, 0.07831858098506927, -12.68868637084961, -381.9176025390625),
    (0.08592529594898224, 0.08571445196866989, 0.9926530122756958, -0.08508504927158356,
     -0.3225192725658417, 0.07538728415966034, -12.419175148010254, -228.4514617919922),
    (0.10156049579381943, 0.1012127473950386, 0.9897559881210327, -0.1001756563782692,
     -0.3202178180217743, 0.053910307586193085, 5.251229286193848, 130.27134704589844),
    (0.11719150841236115, 0.11665794253349304, 0.9863909482955933, -0.11506982892751694,
     -0.31662413477897644, 0.05017668753862381, 14.76330280303955, 287.1753234863281),
    (0.14059840142726898, 0.1396792232990265, 0.9804897308349609, -0.13695386052131653,
     -0.3079133629798889, 0.08616425096988678, 0.7352920174598694, 7.170973300933838),
    (0.17188763618469238, 0.17021457850933075, 0.9710270166397095, -0.1652827262878418,
     -0.295796275138855, 0.10242263227701187, 0.8462372422218323, 8.739377975463867),
    (0.20316913723945618, 0.200419083237648, 0.9598321914672852, -0.19236865639686584,
     -0.2813948690891266, 0.12022935599088669, 0.10609418153762817, 0.6659688949584961),
    (0.23441928625106812, 0.23021765053272247, 0.9469998478889465, -0.21801595389842987,
     -0.26566579937934875, 0.13201279938220978, 0.6361856460571289, 5.423608779907227),
    (0.28121307492256165, 0.27402743697166443, 0.9249089360237122, -0.2534506022930145,
     -0.2387596219778061, 0.15048372745513916, -0.007474064826965332, -0.4687369465827942),
    (0.34375154972076416, 0.33082249760627747, 0.8905564546585083, -0.2946162223815918,
     -0.19931960105895996, 0.16452671587467194, -0.017003310844302177, -0.3382532298564911),
    (0.40618768334388733, 0.3852308988571167, 0.8515971302986145, -0.32806164026260376,
     -0.1574067920446396, 0.17034202814102173, -0.05217420309782028, -0.2905568778514862),
    (0.4688358008861542, 0.43725818395614624, 0.8088052868843079, -0.35365670919418335,
     -0.1149832010269165, 0.16807666420936584, -0.0020216978155076504, 0.0055006323382258415),
    (0.5624056458473206, 0.5097601413726807, 0.7401446104049683, -0.37729617953300476,
     -0.05439448356628418, 0.15346233546733856, -0.04166891798377037, -0.03274565562605858),
    (0.6874731779098511, 0.5963562726974487, 0.6443591713905334, -0.3842677175998688,
     0.014393983408808708, 0.11957117915153503, -0.0652802363038063, -0.021221362054347992),
    (0.8123744130134583, 0.6708980202674866, 0.5498958230018616, -0.368924081325531,
     0.06423082202672958, 0.07992898672819138, -0.0661926120519638, 0.001490954658947885),
    (0.9374492764472961, 0.7340481281280518, 0.4611733555793762, -0.33852341771125793,
     0.09475981444120407, 0.04326489195227623, -0.05157613381743431, 0.019191013649106026),
    (1.1253259181976318, 0.809413492679596, 0.3448497951030731, -0.2791260778903961,
     0.11097937822341919, 0.0032147851306945086, -0.032018136233091354, 0.01849832944571972),
    (1.3747423887252808, 0.8797684907913208, 0.2260074019432068, -0.19883419573307037,
     0.09959300607442856, -0.021339360624551773, -0.00951886735856533, 0.010943150147795677),
    (1.6252789497375488, 0.9253863096237183, 0.14366017282009125, -0.13294115662574768,
     0.07513663172721863, -0.0252163615077734, 0.0013649994507431984, 0.004139075055718422),
    (1.8746566772460938, 0.9540144205093384, 0.08985648304224014, -0.08572438359260559,
     0.05183078348636627, -0.02087196335196495, 0.004581701010465622, 0.0006490593077614903),
    (2.249577283859253, 0.9780077338218689, 0.0435008704662323, -0.042544182389974594,
     0.027108581736683846, -0.012331399135291576, 0.003979099448770285, -0.0007182146073319018),
    (2.7495229244232178, 0.9918519854545593, 0.016229642555117607, -0.016097398474812508,
     0.010555955581367016, -0.005104574374854565, 0.001916864886879921, -0.0005454113124869764),
    (3.2493772506713867, 0.996993899345398, 0.006003166548907757, -0.005985119380056858,
     0.003965848591178656, -0.0019590589217841625, 0.0007715221727266908, -0.00024361346731893718),
    (3.750706434249878, 0.9988960027694702, 0.0022067762911319733, -0.002204339951276779,
     0.001466227462515235, -0.0007298742420971394, 0.0002922053972724825, -9.564233914716169e-05),
    (4.498123645782471, 0.9997522830963135, 0.000495383283123374, -0.0004952530143782496,
     0.00032965693389996886, -0.00016474949370604008, 6.855817628093064e-05, -2.2521078790305182e-05),
    (5.498580455780029, 0.9999665021896362, 6.699598452541977e-05, -6.699275400023907e-05,
     4.461104981601238e-05, -2.2313253793981858e-05, 9.305895218858495e-06, -3.0706032703164965e-06),
    (6.467113971710205, 0.9999951720237732, 9.656121619627811e-06, -9.65554136200808e-06,
     6.430932444345672e-06, -3.223366775273462e-06, 1.339050413662335e-06, -4.1949255091822124e-07),
    (7.278045177459717, 0.9999990463256836, 1.9073161183769116e-06, -1.9073260091317934e-06,
     1.272806457564002e-06, -6.379624437613529e-07, 2.4518061536582536e-07, -5.6396125103219674e-08),
    (8.317766189575195, 0.9999998807907104, 2.384826132129092e-07, -2.38964389609464e-07,
     1.5876604209097422e-07, -7.447769689861161e-08, 2.2427881773978697e-08, -3.149658533985189e-09),
)
TANH_TABLE32 = TANH_TABLE32 + (TANH_TABLE32[-1],) * (32 - len(TANH_TABLE32))
_TANH_FIRST = 491     # (bits of 2**-4) >> 21, minus 1: (bits(|x|) >> 21) - it is the interval's index
_TANH_CLAMP = 9.5     # tanh rounds to 1 in float32 from 9.01 on

_AVX512_CPUS = ("x86-64-v4", "skylake-avx512", "cascadelake", "cooperlake", "cannonlake", "icelake-client",
                "icelake-server", "tigerlake", "rocketlake", "sapphirerapids", "emeraldrapids", "graniterapids",
                "znver4", "znver5")


def available() -> bool:
    """Whether the pass takes the table functions (MARK): for kernels compiled for a CPU with AVX-512 (F, VL, DQ,
    BW), the host's unless TRANSPILER_TARGET_CPU names another (backend/target.py). TRANSPILER_VECTOR_LOOPS=0 turns
    the pass off, to compare (a measurement switch, not in the disk cache's key: compare with
    TRANSPILER_CACHE_DIR="")."""
    if os.environ.get("TRANSPILER_VECTOR_LOOPS") == "0":
        return False
    cpu = target.target_cpu()
    if cpu is not None:
        return cpu in _AVX512_CPUS
    return {"avx512f", "avx512vl", "avx512dq", "avx512bw"} <= _host_flags()


# AVX2 and FMA without AVX-512 (LLVM's names)
_AVX2_CPUS = ("x86-64-v3", "haswell", "broadwell", "skylake", "alderlake", "raptorlake", "meteorlake", "znver1",
              "znver2", "znver3")


def expanded_available() -> bool:
    """Whether the pass takes the loops of vector_math's expansions (EXPANDED): for kernels compiled for a CPU with
    AVX2 and FMA or AVX-512 (their vector code is plain arith on vectors, no intrinsic). TRANSPILER_VECTOR_LOOPS=0
    turns it off too."""
    if os.environ.get("TRANSPILER_VECTOR_LOOPS") == "0":
        return False
    cpu = target.target_cpu()
    if cpu is not None:
        return cpu in _AVX512_CPUS or cpu in _AVX2_CPUS
    return {"avx2", "fma"} <= _host_flags()


@functools.cache
def _host_flags() -> frozenset:
    """This CPU's feature flags (/proc/cpuinfo), empty where it cannot be read."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


class _Unsupported(Exception):
    pass


def vectorize(module: ir.Module) -> None:
    """Vectorize the innermost loops of MARKed math ops and of EXPANDED ones; unmark the ops of loops that stay
    scalar."""
    loops = []

    def add_loop(op):
        if MARK in op.attributes or EXPANDED in op.attributes:
            loop = op.parent
            if loop.name in ("scf.for", "scf.parallel") and not any(loop == other for other in loops):
                loops.append(loop)
        return ir.WalkResult.ADVANCE

    # (only the loops are kept: a handle to an op nested in one that is erased points at freed memory, erasing.py)
    module.operation.walk(add_loop)
    for loop in loops:
        try:
            _vectorize(loop)
        except _Unsupported:     # (its reason, for a reader: why the loop stays scalar)
            pass
    left = []
    module.operation.walk(lambda op: ((MARK in op.attributes or EXPANDED in op.attributes) and left.append(op))
                          or ir.WalkResult.ADVANCE)
    for op in left:
        for mark in (MARK, EXPANDED):
            if mark in op.attributes:
                del op.attributes[mark]


# ops other than arith's that the vector body takes as they are, on vectors (vector_math's expansions use them)
_ELEMENTWISE = ("llvm.intr.fma", "llvm.intr.sqrt", "math.absf")


def _expanded_lanes(t: ir.Type) -> int:
    """Lanes of a loop of expanded math (vector_math's polynomials, arith ops) of type t: two registers, zmm on
    AVX-512 targets, ymm on AVX2 ones. LLVM's vectorizer gives these loops one register per iteration (their bodies
    are too big for its interleaving), and then each iteration is a chain of dependent operations (a Horner
    polynomial, a division) that successive iterations overlap only partly: two registers took 5-25% less time on
    Zen 5, AVX2 code 5-35% less (docs/performance.md). Four zmm registers were faster still for most functions,
    but those with many constants (float64 arctan, tanh, sinh; arctan2) spill, and in one of two runs took 1.6x
    the time of one register."""
    bits = 2 * (512 if available() else 256)
    return bits // (32 if isinstance(t, ir.F32Type) else 64)


# op name -> its vector code, given the op (its attributes) and its operands' vectors
_VECTOR_BODIES = {
    "math.tanh": lambda op, x: tanh_f32(x),
    "math.powf": lambda op, x, y: (vector_power.power_f32 if isinstance(ir.VectorType(x.type).element_type,
                                                                        ir.F32Type) else vector_power.power_f64)(
        x, y, positive=_NORMAL_ARGUMENTS in op.attributes),
}


def _vectorize(loop) -> None:
    body = loop.regions[0].blocks[0]
    if loop.name == "scf.for":
        lower, upper, step = loop.operands[0], loop.operands[1], loop.operands[2]
        if len(loop.results):
            raise _Unsupported("loop-carried values")
    else:
        if len(loop.operands) != 3 or len(loop.results):
            raise _Unsupported("more than one dim, or a reduction")
        lower, upper, step = loop.operands[0], loop.operands[1], loop.operands[2]
    if not _is_constant(step, 1):
        raise _Unsupported("step")
    index = body.arguments[0]
    ops = list(body.operations)[:-1]
    terminator = list(body.operations)[-1]
    if terminator.name not in ("scf.yield", "scf.reduce") or len(terminator.operands):
        raise _Unsupported("terminator")
    stored = {}
    varying = {index}     # values that differ between iterations: the index and what is computed from it
    for op in ops:
        if op.name in ("memref.load", "memref.store"):
            memory, indices = _access(op)
            if any(v in varying for v in indices[:-1]) or (indices and indices[-1] in varying and
                                                            indices[-1] != index):
                raise _Unsupported("an index that varies along the loop other than the loop's own (a gather: "
                                   "x[ids[i]]), or the loop's index in an outer dim")
            if indices and indices[-1] == index and ir.MemRefType(memory.type).get_strides_and_offset()[0][-1] != 1:
                raise _Unsupported("strided innermost dim")
            if op.name == "memref.store":
                owner = _operation(memory)
                if not (owner is not None and owner.name in ("memref.alloc", "memref.alloca") or
                        is_result_destination(memory)) or not indices or indices[-1] != index:
                    raise _Unsupported("a store into memory the function did not allocate")
                stored.setdefault(memory, []).append(list(indices))
        elif not (op.name.startswith("arith.") or op.name in _ELEMENTWISE or
                  (MARK in op.attributes and op.name in _VECTOR_BODIES)):
            raise _Unsupported(op.name)
        elif any(v == index for v in op.operands):
            raise _Unsupported("the loop's index in arithmetic")
        if op.name == "memref.load" and _access(op)[1][-1:] == [index] or any(v in varying for v in op.operands):
            varying.update(op.results)
    for op in ops:
        if op.name == "memref.load":
            memory, indices = _access(op)
            if memory in stored and any(list(indices) != s for s in stored[memory]):
                raise _Unsupported("a load of another element of a stored buffer")
    idx = ir.IndexType.get()
    lanes = min([_WIDTHS.get((op.name, str(op.results[0].type)), WIDTH) for op in ops if MARK in op.attributes] +
                [_expanded_lanes(op.results[0].type) for op in ops if EXPANDED in op.attributes])
    # the vector loop's end, before the outermost loop that it does not depend on: a loop's work is counted times its
    # trip count only where its bounds are known before the parallel region (loops.thread_only_large_loops)
    with ir.InsertionPoint(_outermost_independent(loop, (lower, upper))), loop.location:
        span = arith.maxsi(arith.subi(upper, lower), arith.constant(idx, 0))
        width = arith.constant(idx, lanes)
        vector_end = arith.addi(lower, arith.muli(arith.divui(span, width), width))
    with ir.InsertionPoint(loop), loop.location:
        if loop.name == "scf.for":
            vloop = scf.ForOp(lower, vector_end, width)
            vbody, vindex = vloop.body, vloop.induction_variable
        else:
            vloop = scf.ParallelOp([], [lower], [vector_end], [width], [])
            vbody = ir.Block.create_at_start(vloop.regions[0], [idx])
            vindex = vbody.arguments[0]
            with ir.InsertionPoint(vbody):
                ir.Operation.create("scf.reduce", results=[], operands=[], regions=0)
        with ir.InsertionPoint(vbody.operations[0] if len(vbody.operations) else vbody):
            _vector_body(ops, index, vindex, lanes)
        if loop.name == "scf.for":
            with ir.InsertionPoint(vbody):
                scf.YieldOp([])
        tail = scf.ForOp(vector_end, upper, arith.constant(idx, 1))
        with ir.InsertionPoint(tail.body):
            mapping = {index: tail.induction_variable}
            for op in ops:
                clone = op.clone()
                for i, v in enumerate(clone.operands):
                    if v in mapping:
                        clone.operands[i] = mapping[v]
                for old, new in zip(op.results, clone.results):
                    mapping[old] = new
            scf.YieldOp([])
    erase_with_body(loop)


def _vector_body(ops, index, vindex, width: int) -> None:
    """The loop body `ops` on `width` lanes from `vindex`: loads and stores of the loop's element are vector ones,
    values from outside the loop (or computed from such values only) are broadcast where lanes meet them."""
    lanes = {}         # value of the scalar body -> its vector
    uniform = {index: vindex}       # values with one value for every lane: scalar clones

    broadcasts = {}    # value of the scalar body -> its broadcast, made once (expansions reuse their constants)

    def lane_value(v):
        if v in lanes:
            return lanes[v]
        if v not in broadcasts:
            scalar = uniform.get(v, v)
            broadcasts[v] = vector.broadcast(ir.VectorType.get([width], scalar.type), scalar)
        return broadcasts[v]

    for op in ops:
        if op.name == "memref.load":
            memory, indices = _access(op)
            mapped = [uniform.get(i, i) for i in indices]
            if indices and indices[-1] == index:
                lanes[op.results[0]] = vector.load(ir.VectorType.get([width], op.results[0].type), memory, mapped)
            else:
                clone = op.clone()
                for i, v in enumerate(clone.operands):
                    clone.operands[i] = uniform.get(v, v)
                uniform[op.results[0]] = clone.results[0]
        elif op.name == "memref.store":
            memory, indices = _access(op)
            vector.store(lane_value(op.operands[0]), memory, [uniform.get(i, i) for i in indices])
        elif not any(v in lanes for v in op.operands) and MARK not in op.attributes:
            clone = op.clone()                                   # a value of the outer loops' indices, say
            for i, v in enumerate(clone.operands):
                clone.operands[i] = uniform.get(v, v)
            uniform[op.results[0]] = clone.results[0]
        elif MARK in op.attributes:
            lanes[op.results[0]] = _VECTOR_BODIES[op.name](op, *[lane_value(v) for v in op.operands])
        elif op.name == "arith.constant":
            t = ir.VectorType.get([width], op.results[0].type)
            lanes[op.results[0]] = arith.constant(t, ir.DenseElementsAttr.get_splat(t, op.attributes["value"]))
        else:
            operands = [lane_value(v) for v in op.operands]
            results = [ir.VectorType.get([width], r.type) for r in op.results]
            attributes = {name: op.attributes[name] for name in op.attributes}
            new = ir.Operation.create(op.name, results=results, operands=operands, attributes=attributes)
            for old, value in zip(op.results, new.results):
                lanes[old] = value


def _outermost_independent(loop, values):
    """The outermost of `loop` and the ops around it (below the function) inside which no value of `values` is
    defined."""
    point = loop
    while True:
        parent = point.parent
        if parent is None or parent.name in ("func.func", "builtin.module") or \
                any(_defined_in(v, parent) for v in values):
            return point
        point = parent


def _defined_in(value, op) -> bool:
    owner = value.owner
    node = owner.owner if isinstance(owner, ir.Block) else _operation(value)
    while node is not None:
        if node == op:
            return True
        node = node.parent
    return False


def _access(op):
    """(memref, indices) of a memref.load or memref.store."""
    if op.name == "memref.load":
        return op.operands[0], list(op.operands[1:])
    return op.operands[1], list(op.operands[2:])


def _is_constant(value, number) -> bool:
    owner = _operation(value)
    return owner is not None and owner.name == "arith.constant" and \
        ir.IntegerAttr(owner.attributes["value"]).value == number


def _operation(value):
    """The operation that defines `value`, None for a block argument."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _splat(t: ir.VectorType, value) -> ir.Value:
    element = t.element_type
    attr = ir.FloatAttr.get(element, value) if isinstance(element, ir.F32Type) else ir.IntegerAttr.get(element, value)
    return arith.constant(t, ir.DenseElementsAttr.get_splat(t, attr))


def _lookup(index: ir.Value, column) -> ir.Value:
    """column[index] per lane: 32 entries in two registers, one vpermi2ps (it reads the index's low 5 bits)."""
    vt = ir.VectorType.get([WIDTH], ir.F32Type.get())
    halves = [arith.constant(vt, ir.DenseElementsAttr.get(np.array(column[i:i + 16], dtype=np.float32), type=vt))
              for i in (0, 16)]
    return llvm.call_intrinsic(vt, "llvm.x86.avx512.vpermi2var.ps.512", [halves[0], index, halves[1]], [], [])


def tanh_f32(x: ir.Value) -> ir.Value:
    """float32 tanh of 16 lanes by TANH_TABLE32 (see the module's docstring). NaN: its interval's polynomial of
    NaN; inf: clamped to 9.5, 1; the sign is or'ed back (tanh(-0.0) = -0.0)."""
    i32 = ir.IntegerType.get_signless(32)
    vt, vi = x.type, ir.VectorType.get([WIDTH], i32)
    bits = arith.bitcast(vi, x)
    sign = arith.andi(bits, _splat(vi, -(1 << 31)))
    a = arith.minimumf(arith.bitcast(vt, arith.xori(bits, sign)), _splat(vt, _TANH_CLAMP))    # keeps NaN
    index = arith.maxsi(arith.subi(arith.shrui(arith.bitcast(vi, a), _splat(vi, 21)), _splat(vi, _TANH_FIRST)),
                        _splat(vi, 0))
    mid, *c = list(zip(*TANH_TABLE32))
    t = arith.subf(a, _lookup(index, mid))           # exact: a and mid are within a factor of 2 (or mid = 0)
    first = [1.0] + [0.0] * 31                       # interval 0: tanh = t + t q, with t added in the last rounding
    q = _lookup(index, c[6])
    for k in (5, 4, 3, 2):
        q = llvm.intr_fma(q, t, _lookup(index, c[k]))
    q = llvm.intr_fma(q, t, _lookup(index, [v - f for v, f in zip(c[1], first)]))
    base = llvm.intr_fma(_lookup(index, first), t, _lookup(index, c[0]))
    return arith.bitcast(vt, arith.ori(arith.bitcast(vi, llvm.intr_fma(t, q, base)), sign))
