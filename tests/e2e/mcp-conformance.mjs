// Runs @modelcontextprotocol/conformance in client mode against crux's MCP client
// (`crux mcp conformance URL`, a driver over Streamable HTTP), for both frozen requirement sets:
//   - 2025-11-25 with the released package (0.1.16): every non-auth client scenario it lists;
//   - 2025-11-25 with conformance-0-2 (0.2.0-alpha), --spec-version 2025-11-25;
//   - 2026-07-28 with conformance-0-2, --spec-version 2026-07-28.
// The 0.2 scenario lists come from the package's frozen requirements/<revision>.yaml (its
// `client` list plus the not_scored client scenarios that are no extension), run one by one
// under that revision (`--requirements` cannot name single scenarios and would run auth/*).
// Authorization scenarios (auth/*) are not run: they are reported as not implemented.
//
// Prints one line per scenario and a final "N passed, M failed" line; exits non-zero when a
// scenario fails that mcp-conformance-baseline.yaml does not list as expected.
// Env: CRUX_BIN (the crux binary). Needs Node >= 22 (the conformance package does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, 'node_modules');
const crux = process.env.CRUX_BIN;
if (!crux) {
  console.error('CRUX_BIN is not set');
  process.exit(2);
}
const released = join(modules, '@modelcontextprotocol/conformance/dist/index.js');
const alpha = join(modules, 'conformance-0-2/dist/index.js');
const baseline = YAML.parse(readFileSync(join(here, 'mcp-conformance-baseline.yaml'), 'utf8'));
const isAuth = (name) => name.startsWith('auth/');

// The client scenarios a frozen requirement set names (scored, and not_scored but not extensions).
function requiredScenarios(revision) {
  const file = join(modules, 'conformance-0-2/requirements', `${revision}.yaml`);
  const set = YAML.parse(readFileSync(file, 'utf8'));
  const extra = (set.not_scored ?? [])
    .filter((entry) => entry.leg === 'client' && entry.reason !== 'extension')
    .map((entry) => entry.scenario);
  return [...set.client, ...extra];
}

// The client scenarios the released package lists for 2025-11-25.
function releasedScenarios() {
  const out = spawnSync(process.execPath, [released, 'list'], { encoding: 'utf8' }).stdout;
  const section = out.slice(out.indexOf('Client scenarios'));
  return [...section.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)]
    .filter((m) => m[2].split(',').includes('2025-11-25'))
    .map((m) => m[1]);
}

function countChecks(dir) {
  const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0 };
  const walk = (path) => {
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) walk(child);
      else if (name === 'checks.json') {
        for (const check of JSON.parse(readFileSync(child, 'utf8'))) {
          if (check.status in counts) counts[check.status] += 1;
        }
      }
    }
  };
  walk(dir);
  return counts;
}

function run(set, scenario) {
  const out = mkdtempSync(join(tmpdir(), 'crux-mcp-conformance-'));
  const args = [set.tool, 'client', '--command', `${crux} mcp conformance`, '--scenario', scenario,
    '--timeout', '20000', '-o', out, ...set.args];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60000 });
  const counts = countChecks(out);
  rmSync(out, { recursive: true, force: true });
  const passed = result.status === 0 && counts.FAILURE === 0 && counts.SUCCESS > 0;
  return { passed, counts, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

const sets = [
  { label: '2025-11-25 (0.1.16)', revision: '2025-11-25', tool: released, args: [],
    scenarios: releasedScenarios() },
  { label: '2025-11-25 (0.2)', revision: '2025-11-25', tool: alpha,
    args: ['--spec-version', '2025-11-25'], scenarios: requiredScenarios('2025-11-25') },
  { label: '2026-07-28 (0.2)', revision: '2026-07-28', tool: alpha,
    args: ['--spec-version', '2026-07-28'], scenarios: requiredScenarios('2026-07-28') },
];

let passed = 0;
let failed = 0;
let unexpected = 0;
for (const set of sets) {
  const expected = new Set((baseline.expected_failures?.[set.revision] ?? []));
  const auth = set.scenarios.filter(isAuth);
  for (const scenario of set.scenarios.filter((name) => !isAuth(name))) {
    const { passed: ok, counts, output } = run(set, scenario);
    const checks = `${counts.SUCCESS}/${counts.SUCCESS + counts.FAILURE} checks` +
      (counts.WARNING ? `, ${counts.WARNING} warnings` : '');
    const known = expected.has(scenario);
    console.log(`${ok ? 'passed' : 'FAILED'}  ${set.label}  ${scenario}  ${checks}` +
      (!ok && known ? '  (expected: see the baseline)' : ''));
    if (ok) passed += 1;
    else {
      failed += 1;
      if (!known) {
        unexpected += 1;
        console.log(output.split('\n').filter((line) => /FAILURE|Error|error:/.test(line))
          .slice(0, 12).map((line) => `    ${line}`).join('\n'));
      }
    }
    if (ok && known) console.log(`    note: ${scenario} passes but the baseline expects it to fail`);
  }
  if (auth.length > 0) {
    console.log(`not run  ${set.label}  ${auth.length} auth/* scenarios: ` +
      (baseline.not_implemented?.auth ?? 'authorization is not implemented'));
  }
}
console.log(`${passed} passed, ${failed} failed` +
  (failed > unexpected ? ` (${failed - unexpected} expected)` : ''));
process.exit(unexpected === 0 ? 0 : 1);
