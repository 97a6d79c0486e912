// What the console's tests and its benchmark share: the console built from the sources (where the API
// run from the sources serves it), the quickstart applied, a signed-in page, and screenshots kept
// out of the repository.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildConsole, CONSOLE_ROOT } from '../../scripts/console-build';
import { ADMIN_TOKEN } from './server';

let built: Promise<unknown> | undefined;
/** Builds console/ into console/dist once per process (the API reads it when it starts). */
export function consoleBuilt(): Promise<unknown> {
  built ??= buildConsole(join(CONSOLE_ROOT, 'dist'));
  return built;
}

/** Where the runs write their screenshots (ignored by git). */
export const SCREENSHOTS = join(CONSOLE_ROOT, '..', 'scratch', 'screenshots', 'console');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** The quickstart's three files as one multi-document YAML body. */
export function quickstartYaml(): string {
  const dir = join(CONSOLE_ROOT, '..', 'examples', 'quickstart');
  return ['gateway.yaml', 'services.yaml', 'routes.yaml'].map((f) => readFileSync(join(dir, f), 'utf8')).join('\n---\n');
}

/** team-b's route of the seed chapter's demo: it names the quickstart's Gateway, whose listener admits shop only. */
export const TEAM_B_ROUTE = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: admin, namespace: team-b }
spec:
  parentRefs: [{ name: shop-gateway, namespace: shop }]
  hostnames: [www.shop.example]
  rules:
    - matches: [{ path: { type: PathPrefix, value: /api/admin } }]
      backendRefs: [{ name: admin, port: 8080 }]
---
apiVersion: v1
kind: Service
metadata: { name: admin, namespace: team-b }
spec: { ports: [{ port: 8080 }] }
`;

export async function applyYaml(url: string, yaml: string, token = ADMIN_TOKEN): Promise<void> {
  const res = await fetch(`${url}/api/v1/apply?wait=30`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/yaml' }, body: yaml });
  if (res.status !== 200) throw new Error(`apply: ${res.status} ${await res.text()}`);
}

/** Opens the console at `path` and signs in with `token` (the sign-in form, as a person would). */
export async function signIn(page: Page, base: string, token: string, path = '/console/'): Promise<void> {
  await page.goto(base + path);
  await page.getByLabel('Bearer token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('header .who').waitFor();
}
