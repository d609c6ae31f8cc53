import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, onTestFinished, test } from 'vitest'
import { readFileSync } from 'node:fs'
import { cliCommands, cliUsage, runCli } from '../../src/cli.ts'
import { parseCliFlags, type CliIo } from '../../src/cli/cli-command.ts'
import { simulatorOptionsFromFlags } from '../../src/cli/simulator-command.ts'

function memoryIo(): CliIo & { output: string[]; errors: string[]; stop: (signal: string) => void } {
  let stop!: (signal: string) => void
  const stopped = new Promise<string>((resolve) => (stop = resolve))
  const output: string[] = []
  const errors: string[] = []
  return { output, errors, stop, out: (l) => output.push(l), err: (l) => errors.push(l), stopRequested: () => stopped }
}

const sim = cliCommands.sim!

describe('flag parsing', () => {
  test('defaults, --flag value and --flag=value', () => {
    const flags = parseCliFlags('sim', sim, [
      '--port',
      '0',
      '--speed=0.5',
      '--max-seqs',
      '8',
      '--seed',
      '-3',
      '--model',
      'm',
      '--buffer=burst',
    ])
    // Values go under the flag's own name (named as the option it sets), whichever older name was given.
    expect(flags).toMatchObject({
      port: 0,
      'speed-factor': 0.5,
      'max-running-sequences': 8,
      seed: -3,
      model: 'm',
      'buffer-mode': 'burst',
      host: '127.0.0.1',
      'decode-base-ms': 10,
    })
    expect(parseCliFlags('sim', sim, [])).toMatchObject({
      port: 8000,
      'speed-factor': 1,
      'max-running-sequences': 32,
      seed: 0,
      model: 'sim-model',
    })
  })

  test('flags map onto simulator options', () => {
    const options = simulatorOptionsFromFlags(
      parseCliFlags('sim', sim, [
        '--speed',
        '2',
        '--max-seqs',
        '4',
        '--api-key',
        'k',
        '--drop-rate',
        '0.1',
        '--http-error-status',
        '500',
      ]),
    )
    expect(options).toMatchObject({
      speedFactor: 2,
      maxRunningSequences: 4,
      apiKey: 'k',
      faults: { dropConnectionRate: 0.1, httpErrorStatus: 500 },
    })
    expect(options.bufferMode).toBeUndefined()
  })

  test.each([
    [['--nope'], /Unknown flag --nope for 'sim'\.$/],
    [['--speeed', '2'], /Unknown flag --speeed for 'sim'\. Did you mean --speed\?/],
    [['--http-error-status', '450'], /--http-error-status: expected one of 429, 500, got '450'/],
    [['--http-error-status', '501'], /--http-error-status: expected one of 429, 500, got '501'/],
    [['--port'], /--port needs a value/],
    [['--port', '--speed', '1'], /--port needs a value/],
    [['--port', 'abc'], /--port: expected a number, got 'abc'/],
    [['--max-seqs', '1.5'], /--max-seqs: expected a whole number/],
    [['--max-seqs', '0'], /--max-seqs: must be at least 1/],
    [['--speed', '-1'], /--speed: must be at least 0/],
    [['--buffer', 'xml'], /--buffer: expected one of json, burst/],
    [['stray'], /Unexpected argument 'stray'/],
  ])('%j is refused: %s', (args, message) => {
    expect(() => parseCliFlags('sim', sim, args)).toThrow(message)
  })
})

describe('runCli', () => {
  test('unknown command: message, usage, exit code 2', async () => {
    const io = memoryIo()
    expect(await runCli(['serve'], io)).toBe(2)
    expect(io.errors.join('\n')).toContain("unknown command 'serve'")
    expect(io.errors.join('\n')).toContain('Usage: vitest-llm-bench <command>')
  })

  test('a misspelt command is named with the closest one', async () => {
    const io = memoryIo()
    expect(await runCli(['sm'], io)).toBe(2)
    expect(io.errors.join('\n')).toContain("unknown command 'sm'. Did you mean 'sim'?")
    expect(await runCli(['help', 'simm'], io)).toBe(2)
    expect(io.errors.join('\n')).toContain("unknown command 'simm'. Did you mean 'sim'?")
  })

  test('--version, -v and version print the package version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    for (const argv of [['--version'], ['-v'], ['version']]) {
      const io = memoryIo()
      expect(await runCli(argv, io)).toBe(0)
      expect(io.output).toEqual([`vitest-llm-bench ${version}`])
    }
  })

  test('help help is the general help', async () => {
    const io = memoryIo()
    expect(await runCli(['help', 'help'], io)).toBe(0)
    expect(io.errors).toEqual([])
    expect(io.output).toEqual([cliUsage()])
    expect(cliUsage()).toMatch(/version\s+Print this package's version/)
  })

  test('help version says what version does; it never answers "unknown command" with itself', async () => {
    const io = memoryIo()
    expect(await runCli(['help', 'version'], io)).toBe(0)
    expect(io.errors).toEqual([])
    expect(io.output.join('\n')).toMatch(
      /^Usage: vitest-llm-bench version \(or --version, -v\)\n\nPrints this package's version\.$/,
    )
  })

  test('missing command: exit code 2', async () => {
    const io = memoryIo()
    expect(await runCli([], io)).toBe(2)
    expect(io.errors.join('\n')).toContain('missing command')
  })

  test('bad flag: message, the command usage, exit code 2', async () => {
    const io = memoryIo()
    expect(await runCli(['sim', '--max-seqs', 'many'], io)).toBe(2)
    const text = io.errors.join('\n')
    expect(text).toContain('--max-seqs: expected a number')
    expect(text).toContain('Usage: vitest-llm-bench sim [flags]')
  })

  test('help lists the commands; help sim and sim --help list its flags', async () => {
    const io = memoryIo()
    expect(await runCli(['help'], io)).toBe(0)
    expect(io.output.join('\n')).toMatch(/sim\s+Run the built-in OpenAI-compatible simulator/)
    expect(await runCli(['help', 'sim'], io)).toBe(0)
    expect(await runCli(['sim', '--help'], io)).toBe(0)
    expect(io.output.at(-1)).toBe(cliUsage('sim'))
    expect(cliUsage('sim')).toMatch(
      /--max-running-sequences <integer> \(also --max-seqs\)\s+Most sequences decoded together .*\(default 32\)/,
    )
  })

  test('sim runs in process until asked to stop, then exits 0', async () => {
    const io = memoryIo()
    const exit = runCli(['sim', '--port', '0', '--speed', '0'], io)
    let url: string | undefined
    for (let i = 0; i < 200 && !url; i++) {
      await new Promise((r) => setTimeout(r, 10))
      url = io.output.join('\n').match(/http:\/\/127\.0\.0\.1:\d+/)?.[0]
    }
    expect(url).toBeDefined()
    expect((await fetch(`${url}/health`)).status).toBe(200)
    io.stop('SIGTERM')
    expect(await exit).toBe(0)
    expect(io.output.at(-1)).toBe('Simulator stopped (SIGTERM).')
    await expect(fetch(`${url}/health`)).rejects.toThrow()
  })

  test('a port in use: exit code 1 with advice', async () => {
    const first = memoryIo()
    const running = runCli(['sim', '--port', '0'], first)
    let port: string | undefined
    for (let i = 0; i < 200 && !port; i++) {
      await new Promise((r) => setTimeout(r, 10))
      port = first.output.join('\n').match(/127\.0\.0\.1:(\d+)/)?.[1]
    }
    onTestFinished(async () => {
      first.stop('SIGINT')
      await running
    })
    const second = memoryIo()
    expect(await runCli(['sim', '--port', String(port)], second)).toBe(1)
    expect(second.errors.join('\n')).toContain(`port ${port} on 127.0.0.1 is in use`)
  })
})

describe('bin/vitest-llm-bench.js', () => {
  test('sim --port 0 prints its URL, serves /health and exits 0 on SIGTERM', async () => {
    const bin = fileURLToPath(new URL('../../bin/vitest-llm-bench.js', import.meta.url))
    // process.execPath is the Node that runs vitest (>= 23.6 here, so the bin can fall back to the sources).
    const child = spawn(process.execPath, [bin, 'sim', '--port', '0', '--speed', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL')
    })
    let stdout = ''
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString()
        const match = stdout.match(/http:\/\/127\.0\.0\.1:\d+/)
        if (match) resolve(match[0])
      })
      void exited.then((code) => reject(new Error(`exited early with ${code}: ${stderr}`)))
    })
    const health = await fetch(`${url}/health`)
    expect(health.status).toBe(200)
    expect(health.headers.get('server')).toBe('vitest-llm-bench-sim')
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(stdout).toContain('Simulator stopped (SIGTERM).')
  })

  test('a bad flag exits with code 2 and prints the usage', async () => {
    const bin = fileURLToPath(new URL('../../bin/vitest-llm-bench.js', import.meta.url))
    const child = spawn(process.execPath, [bin, 'sim', '--bogus'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
    expect(code).toBe(2)
    expect(stderr).toContain('Unknown flag --bogus')
    expect(stderr).toContain('Usage: vitest-llm-bench sim [flags]')
  })
  test("sim started by a process that is killed (npx on a CI cancel) stops too: it is nobody's server", async () => {
    const cli = `import { runCli } from ${JSON.stringify(fileURLToPath(new URL('../../src/cli.ts', import.meta.url)))}; process.exitCode = await runCli(process.argv.slice(1))`
    // The wrapper starts the CLI as npx does, prints its PID, and stays until killed without passing anything on.
    const wrapper = `const c = require('node:child_process').spawn(process.execPath, ['--input-type=module', '-e', ${JSON.stringify(cli)}, '--', 'sim', '--port', '0', '--speed', '0'], { stdio: ['ignore', 'pipe', 'inherit'] }); c.stdout.on('data', (d) => { if (String(d).includes('127.0.0.1')) console.log('pid ' + c.pid) }); setInterval(() => {}, 1000)`
    const parent = spawn(process.execPath, ['-e', wrapper], { stdio: ['ignore', 'pipe', 'pipe'] })
    let pid = 0
    onTestFinished(() => {
      if (parent.exitCode === null) parent.kill('SIGKILL')
      if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL')
    })
    pid = await new Promise<number>((resolve) => {
      let text = ''
      parent.stdout.on('data', (d: Buffer) => {
        text += d.toString()
        const match = /pid (\d+)/.exec(text)
        if (match) resolve(Number(match[1]))
      })
    })
    expect(alive(pid)).toBe(true)
    parent.kill('SIGKILL')
    const deadline = performance.now() + 10_000
    while (alive(pid) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(alive(pid), 'the simulator outlived the process that started it').toBe(false)
  }, 30_000)
})

/** Whether a process of that PID runs (and is not a zombie). */
function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}
