/**
 * A private redis-server for one run (Debian's `redis-server` package): loopback only, a free port,
 * no persistence, its working directory a temp dir removed on stop. Resolves null with the reason
 * where redis-server is not installed, so a caller can skip with that message.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const REDIS_MISSING =
  'redis-server is not installed (Debian: apt-get install redis-server): the Redis store mode is skipped';

/** Whether redis-server can be started here: null when it can, else the reason. */
export function redisUnavailable() {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8', timeout: 5000 });
  return probe.error || probe.status !== 0 ? REDIS_MISSING : null;
}

/** A port free a moment ago (redis-server cannot take port 0: it means "no TCP" there). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Start one: resolves {url, stop} or {url: null, reason}. Three tries at a free port, 10 s each. */
export async function startRedis({ log = null } = {}) {
  const reason = redisUnavailable();
  if (reason) return { url: null, reason };
  let lastError = 'no attempt';
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'tiergate-redis-'));
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--protected-mode',
      'yes',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--daemonize',
      'no',
    ];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const stop = () =>
      new Promise((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const t = setTimeout(() => child.kill('SIGKILL'), 3000);
        child.once('exit', () => {
          clearTimeout(t);
          done();
        });
        child.kill('SIGTERM');
      });
    const ready = await new Promise((resolve) => {
      let out = '';
      const timer = setTimeout(() => resolve(`no "Ready to accept connections" within 10 s`), 10_000);
      const onData = (d) => {
        log?.write(d);
        out += d;
        if (/Ready to accept connections/.test(out)) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(`exited with ${code}: ${out.trim().split('\n').slice(-1)[0] ?? ''}`);
      });
    });
    if (ready === true) return { url: `redis://127.0.0.1:${port}`, stop };
    lastError = ready;
    await stop();
  }
  throw new Error(`redis-server did not start: ${lastError}`);
}
