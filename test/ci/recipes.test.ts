/**
 * The CI recipes are checked, not just written: action.yml and every GitHub workflow under examples/
 * pass GitHub's own parser (@actions/workflow-parser, the schema and checks behind GitHub's editor
 * support), the GitLab example passes GitLab's CI schema (gitlab-ci-local), and the composite
 * action's steps run here against the embedded reference target.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tsImport } from 'tsx/esm/api';
import { describe, expect, it, type TestContext } from 'vitest';
import { parse } from 'yaml';
import type * as WorkflowParser from '@actions/workflow-parser';
import type * as ActionParser from '@actions/workflow-parser/actions/index';
import { loadConfig } from '../../src/config/load.ts';
import { containsFullKey } from '../../src/contract/keys.ts';
import { runCompositeAction, type CompositeRun } from './composite-action.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ACTION = join(ROOT, 'action.yml');
const WORKFLOW = join(ROOT, 'examples/github-actions/tiergate-gate.yml');
const GITLAB = join(ROOT, 'examples/gitlab-ci/.gitlab-ci.yml');

/**
 * The parser imports its schema JSON without an import attribute, which Node refuses; tsx (which runs
 * the CLI already) loads it.
 */
async function parsers() {
  const workflow = (await tsImport('@actions/workflow-parser', import.meta.url)) as typeof WorkflowParser;
  const action = (await tsImport('@actions/workflow-parser/actions/index', import.meta.url)) as typeof ActionParser;
  return { workflow, action, trace: new workflow.NoOperationTraceWriter() };
}

const messages = (result: { context: { errors: { getErrors(): { message: string }[] } } }) =>
  result.context.errors.getErrors().map((e) => e.message);

async function yamlFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && /\.ya?ml$/.test(e.name)).map((e) => join(e.parentPath, e.name));
}

describe('the CI recipes are valid', () => {
  it("action.yml passes GitHub's action parser and converts", async () => {
    const { action, trace } = await parsers();
    const parsed = action.parseAction({ name: 'action.yml', content: await readFile(ACTION, 'utf8') }, trace);
    expect(messages(parsed)).toEqual([]);
    const template = action.convertActionTemplate(parsed.context, parsed.value!);
    expect(messages(parsed)).toEqual([]);
    expect(template.runs.using).toBe('composite');
  });

  it("every YAML file under examples/ is a GitHub workflow that passes GitHub's workflow parser, or the GitLab pipeline", async () => {
    const { workflow, trace } = await parsers();
    const files = await yamlFilesUnder(join(ROOT, 'examples'));
    const workflows = files.filter((f) => relative(ROOT, f).startsWith('examples/github-actions/'));
    expect(workflows.length).toBeGreaterThan(0);
    // A recipe nobody validates would rot: every one is of a kind checked here.
    expect(files.filter((f) => !workflows.includes(f))).toEqual([GITLAB]);
    for (const file of workflows) {
      const parsed = workflow.parseWorkflow(
        { name: relative(ROOT, file), content: await readFile(file, 'utf8') },
        trace,
      );
      expect(messages(parsed), file).toEqual([]);
      const template = await workflow.convertWorkflowTemplate(parsed.context, parsed.value!);
      expect(messages(parsed), file).toEqual([]);
      expect(template.errors ?? [], file).toEqual([]);
    }
  });

  it('the example workflow gives the action only inputs it declares, and, from secrets, every key the example config names', async () => {
    const action = parse(await readFile(ACTION, 'utf8')) as { inputs: Record<string, unknown> };
    const workflow = parse(await readFile(WORKFLOW, 'utf8')) as {
      jobs: Record<string, { steps: { uses?: string; with?: Record<string, string>; env?: Record<string, string> }[] }>;
    };
    const gate = Object.values(workflow.jobs)
      .flatMap((job) => job.steps)
      .find((s) => s.uses?.endsWith('/tiergate@v1'));
    expect(Object.keys(gate?.with ?? {}).filter((name) => !(name in action.inputs))).toEqual([]);
    const config = await loadConfig('fixtures/tiergate.config.example.json', ROOT);
    const keyVariables = config.orgs.flatMap((org) =>
      Object.values(org.keys).flatMap((key) => (typeof key === 'object' ? [key.env] : [])),
    );
    expect(Object.entries(gate?.env ?? {})).toEqual(keyVariables.map((name) => [name, `\${{ secrets.${name} }}`]));
  });

  it("the GitLab pipeline passes GitLab's CI schema and keeps junit.xml as its test report, whatever the verdict", async () => {
    // gitlab-ci-local writes a state folder beside the file it reads: give it a copy.
    const dir = await mkdtemp(join(tmpdir(), 'tiergate-gitlab-'));
    try {
      await cp(GITLAB, join(dir, '.gitlab-ci.yml'));
      const bin = join(ROOT, 'node_modules/gitlab-ci-local/dist/index.js');
      const { stdout } = await promisify(execFile)(process.execPath, [bin, '--cwd', basename(dir), '--list-json'], {
        cwd: dirname(dir),
      });
      const jobs = JSON.parse(stdout) as { name: string }[];
      expect(jobs.map((j) => j.name)).toEqual(['tiergate']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const job = (
      parse(await readFile(GITLAB, 'utf8')) as {
        tiergate: { artifacts: { when: string; paths: string[]; reports: { junit: string } } };
      }
    ).tiergate;
    expect(job.artifacts.when).toBe('always');
    expect(job.artifacts.paths.some((p) => job.artifacts.reports.junit.startsWith(p))).toBe(true);
  });
});

// At once: each run has a workspace and a target of its own, and mostly waits on loopback.
describe.concurrent('action.yml, its steps run here against the embedded reference target', () => {
  const ARTIFACT_URL = 'https://github.com/o/r/actions/runs/1/artifacts/2';

  /** The action in a fresh workspace, removed when the test ends. */
  async function run(
    inputs: Record<string, string>,
    onTestFinished: TestContext['onTestFinished'],
  ): Promise<CompositeRun & { workspace: string }> {
    const workspace = await mkdtemp(join(tmpdir(), 'tiergate-action-'));
    onTestFinished(() => rm(workspace, { recursive: true, force: true }));
    const result = await runCompositeAction(ACTION, {
      inputs: { 'node-version': '', tiers: 'starter', window: '2s', checks: 'AUTH-MISSING,HDR-PRESENT', ...inputs },
      workspace,
      // The action's own checkout is this repository: its bin, its node_modules.
      actionPath: ROOT,
      stubs: {
        'actions/upload-artifact': () => ({ 'artifact-url': ARTIFACT_URL }),
        'mikepenz/action-junit-report': () => ({}),
      },
    });
    return { ...result, workspace };
  }

  const stepNamed = (result: CompositeRun, name: string) => result.steps.find((s) => s.name === name)!;

  it('passes: the summary on the job page, the run kept as an artifact, junit.xml published and linked', async ({
    expect,
    onTestFinished,
  }) => {
    const result = await run({}, onTestFinished);
    const { workspace } = result;
    const gate = stepNamed(result, 'Run the gate');
    expect(gate.exitCode, gate.log).toBe(0);
    const reportDir = result.outputs['report-dir']!;
    expect(result.outputs['exit-code']).toBe('0');
    expect(relative(workspace, reportDir)).toMatch(/^reports\/\d{8}-\d{6}-[0-9a-f]{4}$/);
    expect((await stat(join(reportDir, 'index.html'))).isFile()).toBe(true);

    expect(stepNamed(result, 'Set up Node.js').ran).toBe(false);
    expect(stepNamed(result, 'Keep the report').with).toEqual({
      name: 'tiergate',
      path: reportDir,
      'if-no-files-found': 'error',
    });
    const junit = stepNamed(result, 'Publish junit.xml').with!;
    expect(junit).toMatchObject({
      report_paths: join(reportDir, 'junit.xml'),
      check_name: 'tiergate',
      job_summary: 'false',
    });
    expect(await readFile(junit.report_paths!, 'utf8')).toContain('<testcase name="HDR-PRESENT [starter]"');

    expect(result.summary).toMatch(/^## tiergate ✓ PASS: every check that ran passed\n/);
    expect(result.summary).toContain('| AUTH-MISSING | ✓ pass |');
    expect(result.summary).toContain('| HDR-PRESENT | ✓ pass |');
    expect(result.summary).toContain(`**Report:** \`${relative(workspace, reportDir)}/index.html\``);
    // A paragraph of its own after tiergate's summary, the last thing on the job's page.
    expect(
      result.summary.endsWith(
        `\n\n**Download:** [the tiergate report](${ARTIFACT_URL}) (index.html, results.json, junit.xml)\n`,
      ),
    ).toBe(true);
  });

  it("fails the step with tiergate's exit code, and still keeps, publishes and summarises the report", async ({
    expect,
    onTestFinished,
  }) => {
    const result = await run(
      { args: '--target-fault headers-missing-on-errors', name: 'gate-starter' },
      onTestFinished,
    );
    expect(stepNamed(result, 'Run the gate')).toMatchObject({ outcome: 'failure', exitCode: 1 });
    expect(result.outputs['exit-code']).toBe('1');
    expect(stepNamed(result, 'Keep the report').with).toMatchObject({
      name: 'gate-starter',
      path: result.outputs['report-dir'],
    });
    expect(stepNamed(result, 'Publish junit.xml').ran).toBe(true);
    expect(result.summary).toMatch(/^## tiergate ✗ FAIL: the build must not ship\n/);
    expect(result.summary).toContain('- ✗ fail **HDR-PRESENT [starter]**');
    expect(result.summary).toContain('[the gate-starter report]');
    // The embedded target's keys are real ones: none reaches the job's page or its log.
    expect(containsFullKey(result.summary + result.steps.map((s) => s.log ?? '').join(''))).toBe(false);
  });

  it('refuses a window beside a config file, before tiergate runs: no report, nothing kept', async ({
    expect,
    onTestFinished,
  }) => {
    const result = await run({ config: 'tiergate.config.json' }, onTestFinished);
    const gate = stepNamed(result, 'Run the gate');
    expect(gate).toMatchObject({ outcome: 'failure', exitCode: 2 });
    expect(gate.log).toContain('::error title=tiergate::window shapes the embedded target only');
    expect(result.outputs).toEqual({ 'exit-code': '2', 'report-dir': '' });
    expect(result.steps.filter((s) => s.ran).map((s) => s.name)).toEqual(['Install tiergate', 'Run the gate']);
    expect(result.summary).toBe('');
  });
});

/**
 * The Node.js each action major runs on: `runs.using` in the action's own action.yml at the newest
 * tag of that major (read from each repository on 2026-11-26: checkout v4.4.0 / v5.1.0 / v6.1.0 /
 * v7.0.1, setup-node v4.4.0 / v5.0.0 / v6.5.0 / v7.0.0, upload-artifact v4.6.2 / v5.0.0 / v6.0.0 /
 * v7.0.0, action-junit-report v4.3.1 / v5.6.2 / v6.4.2).
 */
const ACTION_RUNTIME: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'actions/checkout': { v4: 'node20', v5: 'node24', v6: 'node24', v7: 'node24' },
  'actions/setup-node': { v4: 'node20', v5: 'node24', v6: 'node24', v7: 'node24' },
  'actions/upload-artifact': { v4: 'node20', v5: 'node20', v6: 'node24', v7: 'node24' },
  'mikepenz/action-junit-report': { v4: 'node20', v5: 'node20', v6: 'node24' },
};
/** Node.js lines past their end of life (Node 20: 2026-04-30). */
const END_OF_LIFE = new Set(['node12', 'node16', 'node20']);
const NODE_EOL_MAJORS = new Set([12, 14, 16, 18, 20]);

describe('the CI recipes run on a Node.js that is still supported', () => {
  it('every action a recipe uses is a major that runs on a supported Node, by the table', async () => {
    const files = [ACTION, ...(await yamlFilesUnder(join(ROOT, 'examples/github-actions')))];
    const uses = (
      await Promise.all(
        files.map(async (file) =>
          [...(await readFile(file, 'utf8')).matchAll(/^\s*(?:-\s*)?uses:\s*([^\s#]+)/gm)].map((m) => ({
            file: relative(ROOT, file),
            ref: m[1]!,
          })),
        ),
      )
    ).flat();
    expect(uses.length).toBeGreaterThanOrEqual(4);
    const problems = uses.flatMap(({ file, ref }) => {
      const [name, major] = ref.split('@') as [string, string];
      // The action the example stands for: this repository itself.
      if (name === 'your-org/tiergate') return [];
      const runtime = ACTION_RUNTIME[name]?.[major];
      if (runtime === undefined) return [`${file}: ${ref} is not in the table: look up its runs.using`];
      return END_OF_LIFE.has(runtime) ? [`${file}: ${ref} runs on ${runtime}, past its end of life`] : [];
    });
    expect(problems).toEqual([]);
  });

  it("the action's node-version and the GitLab image default to a supported Node", async () => {
    const action = parse(await readFile(ACTION, 'utf8')) as { inputs: Record<string, { default?: string }> };
    expect(NODE_EOL_MAJORS.has(Number(action.inputs['node-version']!.default))).toBe(false);
    const gitlab = parse(await readFile(GITLAB, 'utf8')) as Record<string, { image?: string }>;
    const images = Object.values(gitlab).flatMap((job) => (typeof job === 'object' && job?.image ? [job.image] : []));
    expect(images.length).toBeGreaterThan(0);
    for (const image of images)
      expect({ image, eol: NODE_EOL_MAJORS.has(Number(/^node:(\d+)/.exec(image)?.[1])) }).toEqual({
        image,
        eol: false,
      });
  });
});
