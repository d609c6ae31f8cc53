import type { LaunchSpec } from './server-spec.ts'

/**
 * `args` with `flag` set to `value`: the value after `flag` (`-np 4`) or after `flag=` (`--max-num-seqs=64`)
 * replaced, every occurrence; the pair appended when the flag is absent. Other arguments keep their order.
 */
export function withArg(args: readonly string[], flag: string, value: string): string[] {
  const out: string[] = []
  let found = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    if (arg === flag && i + 1 < args.length) {
      out.push(flag, value)
      i++
      found = true
    } else if (arg.startsWith(`${flag}=`)) {
      out.push(`${flag}=${value}`)
      found = true
    } else {
      out.push(arg)
    }
  }
  return found ? out : [...out, flag, value]
}

/** The value of the first of `flags` in `args` (`-m model.gguf` or `--model=model.gguf`), as {@link withArg} writes it. */
export function argValue(args: readonly string[], ...flags: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string
    for (const flag of flags) {
      if (arg === flag) return args[i + 1]
      if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1)
    }
  }
  return undefined
}

/** The launch spec with one argument set: a point of a sweep over a server argument. */
export function withServerArg(spec: LaunchSpec, flag: string, value: number): LaunchSpec {
  return { ...spec, args: withArg(spec.args, flag, String(value)) }
}
