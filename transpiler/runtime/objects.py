"""Link a kernel's object files into the process: those machine_code.py just compiled, or those of the disk cache.

The packages ship no linker to turn object files into a shared library. LLVM's own JIT (ORC's LLJIT) can link object
files in memory, and its C API is exported by the `libLLVM.so` the MLIR bindings already load: this module drives it
through ctypes. Symbols the object needs resolve against the process (libm, libc, MLIR's runtime libraries loaded
with RTLD_GLOBAL) and against the callbacks given by name (NumPy's matmul, see blas.py).
"""
from __future__ import annotations

import ctypes
import os
import struct
import threading
from typing import NamedTuple

import llvm

_c_p = ctypes.c_void_p


class _SymbolFlags(ctypes.Structure):
    _fields_ = [("generic", ctypes.c_uint8), ("target", ctypes.c_uint8)]


class _EvaluatedSymbol(ctypes.Structure):
    _fields_ = [("address", ctypes.c_uint64), ("flags", _SymbolFlags)]


class _SymbolMapPair(ctypes.Structure):
    _fields_ = [("name", _c_p), ("symbol", _EvaluatedSymbol)]


_EXPORTED_CALLABLE = 1 | 2   # LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable

_SIGNATURES = {
    "LLVMOrcCreateLLJIT": (_c_p, [ctypes.POINTER(_c_p), _c_p]),
    "LLVMOrcDisposeLLJIT": (_c_p, [_c_p]),
    "LLVMOrcLLJITGetMainJITDylib": (_c_p, [_c_p]),
    "LLVMOrcLLJITGetGlobalPrefix": (ctypes.c_char, [_c_p]),
    "LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess": (_c_p, [ctypes.POINTER(_c_p), ctypes.c_char, _c_p, _c_p]),
    "LLVMOrcJITDylibAddGenerator": (None, [_c_p, _c_p]),
    "LLVMOrcLLJITMangleAndIntern": (_c_p, [_c_p, ctypes.c_char_p]),
    "LLVMOrcAbsoluteSymbols": (_c_p, [ctypes.POINTER(_SymbolMapPair), ctypes.c_size_t]),
    "LLVMOrcJITDylibDefine": (_c_p, [_c_p, _c_p]),
    "LLVMCreateMemoryBufferWithMemoryRangeCopy": (_c_p, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p]),
    "LLVMOrcLLJITAddObjectFile": (_c_p, [_c_p, _c_p, _c_p]),
    "LLVMOrcLLJITLookup": (_c_p, [_c_p, ctypes.POINTER(ctypes.c_uint64), ctypes.c_char_p]),
    "LLVMGetErrorMessage": (_c_p, [_c_p]),
    "LLVMDisposeErrorMessage": (None, [_c_p]),
    "LLVMParseCommandLineOptions": (None, [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.c_char_p]),
    "LLVMGetHostCPUName": (_c_p, []),
    "LLVMGetHostCPUFeatures": (_c_p, []),
    "LLVMDisposeMessage": (None, [_c_p]),
    "LLVMInitializeX86TargetInfo": (None, []),
    "LLVMInitializeX86Target": (None, []),
    "LLVMInitializeX86TargetMC": (None, []),
    "LLVMInitializeX86AsmPrinter": (None, []),
}

_lib = None
_lib_lock = threading.Lock()


def _llvm():
    global _lib
    with _lib_lock:
        if _lib is None:
            lib = ctypes.CDLL(os.path.join(list(llvm.__path__)[0], "lib", "libLLVM.so"), mode=ctypes.RTLD_GLOBAL)
            for name, (restype, argtypes) in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = restype, argtypes
            for init in ("TargetInfo", "Target", "TargetMC", "AsmPrinter"):
                getattr(lib, f"LLVMInitializeX86{init}")()
            _lib = lib
    return _lib


def llvm_library():
    """libLLVM.so, loaded once (with ORC's and the host queries' signatures declared, the X86 target initialized)."""
    return _llvm()


def set_llvm_options(options: list) -> None:
    """Set LLVM's command-line options (process-wide, for every later compilation; call once)."""
    args = [b"transpiler"] + [o.encode() for o in options]
    _llvm().LLVMParseCommandLineOptions(len(args), (ctypes.c_char_p * len(args))(*args), None)


def host_cpu() -> str:
    """LLVM's name and feature string of this CPU."""
    return " ".join(host_cpu_parts())


def host_cpu_parts() -> tuple[str, str]:
    """(LLVM's name of this CPU, its feature string)."""
    lib = _llvm()
    parts = []
    for query in (lib.LLVMGetHostCPUName, lib.LLVMGetHostCPUFeatures):
        message = query()
        parts.append(ctypes.string_at(message).decode())
        lib.LLVMDisposeMessage(message)
    return parts[0], parts[1]


class LoadError(RuntimeError):
    """The object could not be linked (e.g. a symbol is missing): the caller compiles instead."""


def error_text(lib, err) -> str:
    """The message of an LLVMErrorRef (which it consumes)."""
    msg = lib.LLVMGetErrorMessage(err)
    text = ctypes.string_at(msg).decode(errors="replace")
    lib.LLVMDisposeErrorMessage(msg)
    return text


def _check(lib, err) -> None:
    if err:
        raise LoadError(error_text(lib, err))


class LinkedObject:
    """Object files linked together into their own LLJIT instance; `lookup` gives function addresses."""

    def __init__(self, data: bytes | list, symbols: dict):
        """`data`: one object file or a list of them (the parts of one kernel, which call each other's functions);
        `symbols`: name -> address of functions the objects call that the process does not export."""
        lib = self._lib = _llvm()
        jit = _c_p()
        _check(lib, lib.LLVMOrcCreateLLJIT(ctypes.byref(jit), None))
        self._jit = jit
        dylib = lib.LLVMOrcLLJITGetMainJITDylib(jit)
        generator = _c_p()
        _check(lib, lib.LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
            ctypes.byref(generator), lib.LLVMOrcLLJITGetGlobalPrefix(jit), None, None))
        lib.LLVMOrcJITDylibAddGenerator(dylib, generator)
        if symbols:
            pairs = (_SymbolMapPair * len(symbols))(*[
                _SymbolMapPair(lib.LLVMOrcLLJITMangleAndIntern(jit, name.encode()),
                               _EvaluatedSymbol(address, _SymbolFlags(_EXPORTED_CALLABLE, 0)))
                for name, address in symbols.items()])
            _check(lib, lib.LLVMOrcJITDylibDefine(dylib, lib.LLVMOrcAbsoluteSymbols(pairs, len(symbols))))
        for k, part in enumerate([data] if isinstance(data, bytes) else data):
            buffer = lib.LLVMCreateMemoryBufferWithMemoryRangeCopy(part, len(part), f"kernel-{k}.o".encode())
            _check(lib, lib.LLVMOrcLLJITAddObjectFile(jit, dylib, buffer))   # takes the buffer

    def lookup(self, name: str) -> int:
        address = ctypes.c_uint64()
        _check(self._lib, self._lib.LLVMOrcLLJITLookup(self._jit, ctypes.byref(address), name.encode()))
        return address.value

    def __del__(self):
        jit, self._jit = getattr(self, "_jit", None), None
        if jit:
            self._lib.LLVMOrcDisposeLLJIT(jit)


class Symbols(NamedTuple):
    defined: set
    undefined: set


def symbols(obj: bytes) -> Symbols:
    """The names of the global and weak symbols a relocatable ELF object (as LLVM writes them, or check_elf passed)
    defines, and of those it uses without defining."""
    shoff, = struct.unpack_from("<Q", obj, 40)
    shnum, = struct.unpack_from("<H", obj, 60)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + 64 * i) for i in range(shnum)]
    found = Symbols(set(), set())
    for _name, sh_type, _flags, _addr, offset, size, link, _info, _align, _entsize in sections:
        if sh_type != 2:                                      # SHT_SYMTAB
            continue
        strtab = sections[link][4]
        for k in range(1, size // 24):
            st_name, info, _other, shndx, _value, _size = struct.unpack_from("<IBBHQQ", obj, offset + 24 * k)
            if st_name and info >> 4 in (1, 2):               # global or weak
                start = strtab + st_name
                name = obj[start:obj.index(b"\0", start)].decode()
                (found.undefined if shndx == 0 else found.defined).add(name)
    return found


def check_elf(obj: bytes) -> bool:
    """Whether `obj` is a well-formed 64-bit little-endian relocatable ELF object in the ways LLVM's loader relies
    on without checking (it aborts the process on, e.g., a section alignment that is not a power of two): header,
    section table, section ranges and alignments, and the symbol and relocation tables' references."""
    try:
        if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
            return False
        (e_type, _machine, _version, _entry, _phoff, shoff, _flags, ehsize, _phentsize, _phnum, shentsize, shnum,
         shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", obj, 16)
        if e_type != 1 or ehsize != 64 or shentsize != 64 or not 0 < shnum < 65280 or shstrndx >= shnum \
                or shoff + shnum * 64 > len(obj):
            return False
        sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + 64 * i) for i in range(shnum)]
        for _name, sh_type, _flags, _addr, offset, size, link, info, align, entsize in sections:
            if align & (align - 1) or link >= shnum:
                return False
            if sh_type != 8 and offset + size > len(obj):          # SHT_NOBITS (.bss) occupies no file space
                return False
            if sh_type in (2, 11) and (entsize != 24 or size % 24):  # SHT_SYMTAB, SHT_DYNSYM
                return False
            if sh_type in (4, 9) and (info >= shnum or entsize not in (16, 24) or size % entsize):  # SHT_RELA, REL
                return False
        for _name, sh_type, _flags, _addr, offset, size, link, info, _align, entsize in sections:
            if sh_type == 2:
                strtab = sections[link]
                for k in range(size // 24):
                    st_name, _info, _other, shndx, _value, _size = struct.unpack_from("<IBBHQQ", obj, offset + 24 * k)
                    if st_name >= max(strtab[5], 1) or (shndx >= shnum and shndx < 0xff00):
                        return False
            if sh_type in (4, 9):
                symbols = sections[link][5] // 24
                target = sections[info][5]
                for k in range(size // entsize):
                    r_offset, r_info = struct.unpack_from("<QQ", obj, offset + entsize * k)
                    if r_info >> 32 >= symbols or r_offset >= target:
                        return False
        return True
    except (struct.error, IndexError):
        return False
