/**
 * Runs a composite action's steps here as a GitHub runner would, so far as a test can without one:
 * `run:` steps in bash as GitHub runs `shell: bash` (`--noprofile --norc -eo pipefail`), with the
 * runner's variables, a GITHUB_OUTPUT and a GITHUB_STEP_SUMMARY file per step (the summaries joined,
 * as the job's page shows them); `${{ }}` and `if:` evaluated by GitHub's own expression evaluator
 * over the inputs (the action's defaults filled in), the steps' outputs and the job's status. A
 * `uses:` step is not run: the test stubs it, and sees the `with:` it was given. Whatever this runner
 * does not do (other shells, working-directory, GITHUB_ENV, multi-line outputs) fails the run rather
 * than differ from GitHub silently.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';
import type { FunctionDefinition } from '@actions/expressions/funcs/info';
import { truthy } from '@actions/expressions/result';
import { parse } from 'yaml';
import { z } from 'zod';

const step = z.strictObject({
  id: z.string().optional(),
  name: z.string(),
  if: z.string().optional(),
  uses: z.string().optional(),
  with: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  run: z.string().optional(),
  shell: z.literal('bash').optional(),
  env: z.record(z.string(), z.string()).optional(),
});

const actionFile = z.object({
  inputs: z.record(z.string(), z.object({ required: z.boolean().optional(), default: z.string().optional() })),
  outputs: z.record(z.string(), z.object({ value: z.string() })),
  runs: z.object({ using: z.literal('composite'), steps: z.array(step) }),
});

/** What a stubbed `uses:` step gives back: its outputs. */
export type ActionStub = (inputs: Readonly<Record<string, string>>) => Record<string, string>;

export interface CompositeOptions {
  readonly inputs: Readonly<Record<string, string>>;
  /** The job's workspace: the run steps' working directory. */
  readonly workspace: string;
  /** Where the action's files are (GITHUB_ACTION_PATH). */
  readonly actionPath: string;
  /** By action name without its ref, e.g. `actions/upload-artifact`: every `uses:` step needs one. */
  readonly stubs: Readonly<Record<string, ActionStub>>;
}

export interface StepRun {
  readonly name: string;
  /** false: its `if:` said no. */
  readonly ran: boolean;
  readonly outcome: 'success' | 'failure' | 'skipped';
  /** A `uses:` step: what it was given. */
  readonly with?: Readonly<Record<string, string>>;
  readonly outputs: Readonly<Record<string, string>>;
  /** A `run:` step: its exit code and output. */
  readonly exitCode?: number;
  readonly log?: string;
}

export interface CompositeRun {
  readonly steps: readonly StepRun[];
  readonly outputs: Readonly<Record<string, string>>;
  /** Every step's summary, joined in order. */
  readonly summary: string;
}

const STATUS_FUNCTIONS = ['success', 'failure', 'always', 'cancelled'] as const;

/** `${{ inputs.name }}`-style text: each expression evaluated and written in as a string. */
function interpolate(text: string, evaluate: (expression: string) => data.ExpressionData): string {
  return text.replace(/\$\{\{(.*?)\}\}/gs, (_match, expression: string) => evaluate(expression).coerceString());
}

/** GITHUB_OUTPUT's `name=value` lines. */
function readOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const line of text.split('\n').filter((l) => l !== '')) {
    const at = line.indexOf('=');
    if (at < 1) throw new Error(`GITHUB_OUTPUT line this runner does not read: ${line}`);
    outputs[line.slice(0, at)] = line.slice(at + 1);
  }
  return outputs;
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; log: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, log: Buffer.concat(chunks).toString('utf8') }));
  });
}

export async function runCompositeAction(file: string, options: CompositeOptions): Promise<CompositeRun> {
  const action = actionFile.parse(parse(await readFile(file, 'utf8')));
  for (const name of Object.keys(options.inputs))
    if (!(name in action.inputs)) throw new Error(`input ${name} is not declared by ${file}`);
  const inputs: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs)) {
    const value = options.inputs[name] ?? input.default;
    if (value === undefined && input.required) throw new Error(`input ${name} is required by ${file}`);
    inputs[name] = value ?? '';
  }
  const steps: Record<string, { outputs: Record<string, string>; outcome: string; conclusion: string }> = {};
  let failed = false;
  const functions = new Map<string, FunctionDefinition>(
    STATUS_FUNCTIONS.map((name) => [
      name,
      {
        name,
        minArgs: 0,
        maxArgs: 0,
        call: () => new data.BooleanData({ success: !failed, failure: failed, always: true, cancelled: false }[name]),
      },
    ]),
  );
  const evaluate = (expression: string): data.ExpressionData => {
    const context = JSON.parse(
      JSON.stringify({ inputs, steps, github: { action_path: options.actionPath, workspace: options.workspace } }),
      data.reviver,
    ) as data.Dictionary;
    const tree = new Parser(
      new Lexer(expression).lex().tokens,
      ['inputs', 'steps', 'github'],
      [...functions.values()],
    ).parse();
    return new Evaluator(tree, context, functions).evaluate();
  };
  // GitHub's rule: a condition without a status function runs only while every step so far succeeded.
  const shouldRun = (condition: string | undefined): boolean => {
    const bare = (condition ?? 'success()').replace(/^\s*\$\{\{(.*)\}\}\s*$/s, '$1');
    const gated = STATUS_FUNCTIONS.some((f) => new RegExp(`\\b${f}\\s*\\(`).test(bare))
      ? bare
      : `success() && (${bare})`;
    return truthy(evaluate(gated));
  };

  const scratch = await mkdtemp(join(tmpdir(), 'tiergate-runner-'));
  const runs: StepRun[] = [];
  const summaries: string[] = [];
  try {
    for (const [index, s] of action.runs.steps.entries()) {
      const id = s.id ?? `__step${index}`;
      if (!shouldRun(s.if)) {
        steps[id] = { outputs: {}, outcome: 'skipped', conclusion: 'skipped' };
        runs.push({ name: s.name, ran: false, outcome: 'skipped', outputs: {} });
        continue;
      }
      if (s.uses !== undefined) {
        const stub = options.stubs[s.uses.replace(/@.*$/, '')];
        if (!stub) throw new Error(`no stub for ${s.uses} (step "${s.name}")`);
        const given = Object.fromEntries(
          Object.entries(s.with ?? {}).map(([k, v]) => [k, interpolate(String(v), evaluate)]),
        );
        const outputs = stub(given);
        steps[id] = { outputs, outcome: 'success', conclusion: 'success' };
        runs.push({ name: s.name, ran: true, outcome: 'success', with: given, outputs });
        continue;
      }
      if (s.run === undefined || s.shell !== 'bash')
        throw new Error(`step "${s.name}": this runner runs only run: steps with shell: bash`);
      const outputFile = join(scratch, `output-${index}`);
      const summaryFile = join(scratch, `summary-${index}`);
      await writeFile(outputFile, '');
      await writeFile(summaryFile, '');
      const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? options.workspace,
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: options.workspace,
        GITHUB_ACTION_PATH: options.actionPath,
        GITHUB_OUTPUT: outputFile,
        GITHUB_STEP_SUMMARY: summaryFile,
        RUNNER_TEMP: scratch,
        ...Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, interpolate(v, evaluate)])),
      };
      const { code, log } = await bash(interpolate(s.run, evaluate), options.workspace, env);
      const outputs = readOutputs(await readFile(outputFile, 'utf8'));
      summaries.push(await readFile(summaryFile, 'utf8'));
      const outcome = code === 0 ? 'success' : 'failure';
      if (code !== 0) failed = true;
      steps[id] = { outputs, outcome, conclusion: outcome };
      runs.push({ name: s.name, ran: true, outcome, outputs, exitCode: code, log });
    }
    const outputs = Object.fromEntries(
      Object.entries(action.outputs).map(([name, o]) => [name, interpolate(o.value, evaluate)]),
    );
    return { steps: runs, outputs, summary: summaries.join('') };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
