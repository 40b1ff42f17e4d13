// End-to-end: the dashboard's sign-up page follows the server's SIGNUP setting, in Debian's Chromium. Closed:
// it says so and the log-in page offers no sign-up; by invitation: the invite code from the link is filled in,
// a wrong one is flagged on its field, and the right one creates the account.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createInvite } from '../../server/accounts/invites.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { assertAccessible, CHROMIUM, chromiumMissing, cspViolations, launch } from './dashboard-browser.ts';
import { type DashboardHost, dashboardHost } from './dashboard-serve.ts';
import { buildDashboardIfMissing } from './dashboard-suite.ts';

const skip = chromiumMissing()
  ? `Debian's Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium" (or npm run setup -- --with-browser)`
  : false;

describe('sign-up follows SIGNUP', { skip }, () => {
  let browser: Browser;
  const started: { server: TestServer; host: DashboardHost }[] = [];

  before(async () => {
    buildDashboardIfMissing();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    for (const { server, host } of started) {
      await host.close();
      await server.stop();
    }
  });

  async function dashboardWith(signup: string): Promise<{ server: TestServer; page: Page; at(hash: string): string }> {
    const server = await startTestServer({ SIGNUP: signup });
    const host = await dashboardHost(server.url);
    started.push({ server, host });
    const page = await (await browser.newContext()).newPage();
    const refused = cspViolations(page);
    after(() => assert.deepEqual(refused, [], 'no Content-Security-Policy refusals'));
    return { server, page, at: (hash) => `${host.origin}/dashboard/#/${hash}` };
  }

  it('SIGNUP=off: the sign-up page says sign-up is closed; the log-in page offers no sign-up', async () => {
    const { page, at } = await dashboardWith('off');
    await page.goto(at('signup'));
    await page.getByRole('heading', { level: 1, name: 'Sign-up is closed' }).waitFor();
    await page.getByText('Ask its operator for an account').waitFor();
    assert.equal(await page.getByLabel('Email').count(), 0, 'no form to fill in');
    await assertAccessible(page, 'sign-up closed');
    await page.getByRole('link', { name: 'Log in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Log in to your dashboard' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Create an account' }).count(), 0);
  });

  it('SIGNUP=invite: the code from the link is filled in, a wrong code is flagged on its field, the right one signs up', async () => {
    const { server, page, at } = await dashboardWith('invite');
    const { code } = await createInvite(server.deps.db, server.deps.now());
    await page.goto(at('signup?invite=inv_wrong'));
    await page.getByRole('heading', { level: 1, name: 'Create your merchant account' }).waitFor();
    await page.getByText('Sign-up on this server is by invitation').waitFor();
    const field = page.getByLabel('Invite code');
    assert.equal(await field.inputValue(), 'inv_wrong');
    await page.getByLabel('Email').fill('invited@example.test');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('alert').getByText('This invite code is unknown, already used or expired').waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    await assertAccessible(page, 'sign-up by invitation, with an error');
    await field.fill(code);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });
});
