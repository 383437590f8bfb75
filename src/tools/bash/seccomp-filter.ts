/**
 * @module The seccomp filter of a confined command (bwrap --seccomp), as classic BPF built
 * here: system calls no tool command needs fail with EPERM, as in Codex's Linux sandbox:
 * mounting and namespaces, tracing other processes, loading kernel code or BPF, keyrings,
 * the clock, swap, reboot, raw I/O ports, userfaultfd, io_uring (whose operations bypass
 * seccomp) and typing into a terminal (TIOCSTI, TIOCLINUX). `clone` fails when it asks for
 * any new namespace; `clone3`, whose flags sit in memory a filter cannot read, answers ENOSYS
 * so that the C library falls back to `clone`.
 *
 * A system call made under another ABI than the machine's own (i386 or x32 on x86_64, arm32
 * on aarch64), whose numbers differ, kills the process: no tool command makes one. On other
 * architectures there is no filter (the sandbox's other layers still hold).
 *
 *   struct sock_filter { u16 code; u8 jt; u8 jf; u32 k }   8 bytes, little-endian here
 *   struct seccomp_data { i32 nr; u32 arch; u64 ip; u64 args[6] }
 */

const LD_W_ABS = 0x20
const JMP_JEQ_K = 0x15
const JMP_JGE_K = 0x35
const JMP_JSET_K = 0x45
const RET_K = 0x06

const NR_OFFSET = 0
const ARCH_OFFSET = 4
/** The low 32 bits of args[i]: ioctl's request and clone's flags are read from there. */
const argOffset = (index: number): number => 16 + 8 * index

const RET_ALLOW = 0x7fff0000
const RET_KILL_PROCESS = 0x80000000
const RET_ERRNO = 0x00050000
const EPERM = 1
const ENOSYS = 38

const X32_SYSCALL_BIT = 0x40000000
const TIOCSTI = 0x5412
const TIOCLINUX = 0x541c
// CLONE_NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
const CLONE_NAMESPACES = 0x80 | 0x20000 | 0x2000000 | 0x4000000 | 0x8000000 | 0x10000000 | 0x20000000 | 0x40000000

interface SyscallTable {
  readonly auditArch: number
  /** Numbers at or above this belong to another ABI sharing the arch value (x32). */
  readonly foreignFrom?: number
  readonly clone: number
  readonly clone3: number
  readonly ioctl: number
  readonly denied: Readonly<Record<string, number>>
}

const SHARED = {
  move_mount: 429,
  open_tree: 428,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  quotactl_fd: 443,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
}

const X86_64: SyscallTable = {
  auditArch: 0xc000003e,
  foreignFrom: X32_SYSCALL_BIT,
  clone: 56,
  clone3: 435,
  ioctl: 16,
  denied: {
    ...SHARED,
    mount: 165,
    umount2: 166,
    pivot_root: 155,
    ptrace: 101,
    process_vm_readv: 310,
    process_vm_writev: 311,
    bpf: 321,
    perf_event_open: 298,
    kexec_load: 246,
    kexec_file_load: 320,
    init_module: 175,
    finit_module: 313,
    delete_module: 176,
    keyctl: 250,
    add_key: 248,
    request_key: 249,
    unshare: 272,
    setns: 308,
    reboot: 169,
    swapon: 167,
    swapoff: 168,
    acct: 163,
    syslog: 103,
    quotactl: 179,
    iopl: 172,
    ioperm: 173,
    userfaultfd: 323,
    open_by_handle_at: 304,
    settimeofday: 164,
    clock_settime: 227,
    adjtimex: 159,
    clock_adjtime: 305,
  },
}

const AARCH64: SyscallTable = {
  auditArch: 0xc00000b7,
  clone: 220,
  clone3: 435,
  ioctl: 29,
  denied: {
    ...SHARED,
    mount: 40,
    umount2: 39,
    pivot_root: 41,
    ptrace: 117,
    process_vm_readv: 270,
    process_vm_writev: 271,
    bpf: 280,
    perf_event_open: 241,
    kexec_load: 104,
    kexec_file_load: 294,
    init_module: 105,
    finit_module: 273,
    delete_module: 106,
    keyctl: 219,
    add_key: 217,
    request_key: 218,
    unshare: 97,
    setns: 268,
    reboot: 142,
    swapon: 224,
    swapoff: 225,
    acct: 89,
    syslog: 116,
    quotactl: 60,
    userfaultfd: 282,
    open_by_handle_at: 265,
    settimeofday: 170,
    clock_settime: 112,
    adjtimex: 171,
    clock_adjtime: 266,
  },
}

const TABLES: Readonly<Record<string, SyscallTable>> = { x64: X86_64, arm64: AARCH64 }

/** One instruction; a jump names its targets by label, resolved once the program is laid out. */
interface Instruction {
  readonly code: number
  readonly k: number
  readonly jt?: string
  readonly jf?: string
  readonly label?: string
}

const load = (offset: number): Instruction => ({ code: LD_W_ABS, k: offset })
const ret = (k: number, label?: string): Instruction => ({ code: RET_K, k, ...(label === undefined ? {} : { label }) })
const jumpIf = (code: number, k: number, jt: string): Instruction => ({ code, k, jt })

function instructions(table: SyscallTable): Instruction[] {
  const program: Instruction[] = [load(ARCH_OFFSET), jumpIf(JMP_JEQ_K, table.auditArch, 'native'), ret(RET_KILL_PROCESS), { ...load(NR_OFFSET), label: 'native' }]
  if (table.foreignFrom !== undefined) program.push(jumpIf(JMP_JGE_K, table.foreignFrom, 'kill'))
  program.push(jumpIf(JMP_JEQ_K, table.clone3, 'enosys'), jumpIf(JMP_JEQ_K, table.clone, 'clone'), jumpIf(JMP_JEQ_K, table.ioctl, 'ioctl'))
  for (const nr of Object.values(table.denied)) program.push(jumpIf(JMP_JEQ_K, nr, 'eperm'))
  program.push(ret(RET_ALLOW))
  program.push({ ...load(argOffset(0)), label: 'clone' }, jumpIf(JMP_JSET_K, CLONE_NAMESPACES, 'eperm'), ret(RET_ALLOW))
  program.push({ ...load(argOffset(1)), label: 'ioctl' }, jumpIf(JMP_JEQ_K, TIOCSTI, 'eperm'), jumpIf(JMP_JEQ_K, TIOCLINUX, 'eperm'), ret(RET_ALLOW))
  program.push(ret(RET_ERRNO | EPERM, 'eperm'), ret(RET_ERRNO | ENOSYS, 'enosys'), ret(RET_KILL_PROCESS, 'kill'))
  return program
}

function offsetTo(labels: ReadonlyMap<string, number>, from: number, label: string | undefined): number {
  if (label === undefined) return 0
  const target = labels.get(label)
  const offset = target === undefined ? -1 : target - from - 1
  if (offset < 0 || offset > 255) throw new Error(`seccomp filter: jump to ${label} out of range`)
  return offset
}

function assemble(program: readonly Instruction[]): Buffer {
  const labels = new Map<string, number>()
  program.forEach((instruction, index) => {
    if (instruction.label !== undefined) labels.set(instruction.label, index)
  })
  const buffer = Buffer.alloc(program.length * 8)
  program.forEach((instruction, index) => {
    buffer.writeUInt16LE(instruction.code, index * 8)
    buffer.writeUInt8(offsetTo(labels, index, instruction.jt), index * 8 + 2)
    buffer.writeUInt8(offsetTo(labels, index, instruction.jf), index * 8 + 3)
    buffer.writeUInt32LE(instruction.k >>> 0, index * 8 + 4)
  })
  return buffer
}

const programs = new Map<string, Buffer | undefined>()

/** The filter for this machine's architecture, undefined where there is none. */
export function seccompProgram(arch: string = process.arch): Buffer | undefined {
  if (!programs.has(arch)) {
    const table = TABLES[arch]
    programs.set(arch, table === undefined ? undefined : assemble(instructions(table)))
  }
  return programs.get(arch)
}
