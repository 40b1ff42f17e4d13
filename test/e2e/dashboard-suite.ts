// The frame of a dashboard end-to-end file: a server, the dashboard's host in front of it and Debian's Chromium,
// started before the file's tests and stopped after them, the dashboard built first when dashboard/dist has none.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { CHROMIUM, chromiumMissing, launch } from './dashboard-browser.ts';
import { type DashboardHost, DIST, dashboardHost } from './dashboard-serve.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Why the file's tests are skipped on this machine (no Chromium where Debian installs it), or false. */
export const chromiumSkip = (): string | false =>
  chromiumMissing()
    ? `Debian's Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium"`
    : false;

/** Builds the dashboard unless dashboard/dist already holds a build. */
export function buildDashboardIfMissing(): void {
  if (!existsSync(path.join(DIST, 'index.html')))
    execFileSync('npm', ['run', '--silent', 'build:dashboard'], { cwd: ROOT, stdio: 'inherit' });
}

export interface DashboardSuite {
  server: TestServer;
  host: DashboardHost;
  browser: Browser;
}

/**
 * Registers the file's `before` and `after`: a server started with `env`, its dashboard host and Chromium. The
 * fields are set once `before` has run; nothing starts when `skip` says why not.
 */
export function dashboardSuite(skip: string | false, env: Record<string, string> = {}): DashboardSuite {
  const suite = {} as Partial<DashboardSuite>;
  before(async () => {
    if (skip) return;
    buildDashboardIfMissing();
    suite.server = await startTestServer(env);
    suite.host = await dashboardHost(suite.server.url);
    suite.browser = await launch();
  });
  after(async () => {
    await suite.browser?.close();
    await suite.host?.close();
    await suite.server?.stop();
  });
  return suite as DashboardSuite;
}
