import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { loadConfig } from '../../../src/config.js';

/**
 * The hosted workflow cannot run here (it needs Docker and the servers): what can
 * be checked is checked. It parses; each of its shell steps parses; its
 * production-faults job gives the driver what it needs, with multi-host URLs this
 * release's configuration takes.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

interface Step {
  readonly name?: string;
  readonly run?: string;
}
interface Job {
  readonly env?: Record<string, string>;
  readonly steps: readonly Step[];
}

describe('the hosted integration workflow', () => {
  const workflow = load(readFileSync(resolve(root, '.github/workflows/integration.yml'), 'utf8')) as { jobs: Record<string, Job> };

  it('has every shell step parse as bash', () => {
    for (const job of Object.values(workflow.jobs)) {
      for (const step of job.steps) {
        if (!step.run) continue;
        const checked = spawnSync('bash', ['-n'], { input: step.run, encoding: 'utf8' });
        expect(checked.status, `${step.name}: ${checked.stderr}`).to.equal(0);
      }
    }
  });

  it('runs the production-faults driver on clusters given by multi-host URLs that the configuration takes', () => {
    const job = workflow.jobs['production-faults']!;
    const env = job.env!;
    expect(env.CHRONICLE_FAULTS_E2E).to.equal('1');
    expect(env.FAULT_RESTART_EVENTSTORE).to.match(/docker restart esdb1 esdb2 esdb3/);
    expect(env.FAULT_STEP_DOWN_MONGODB).to.contain('replSetStepDown');
    expect(env.EVENTSTORE_URL!.split(',')).to.have.length(3);
    expect(env.MONGODB_URL!.split(',')).to.have.length(3);
    const config = loadConfig({ EVENTSTORE_URL: env.EVENTSTORE_URL, MONGODB_URL: env.MONGODB_URL });
    expect(config).to.include({ eventStoreUrl: env.EVENTSTORE_URL, mongoUrl: env.MONGODB_URL });
    const driver = job.steps.find((step) => step.run?.includes('productionFaults.test.js'));
    expect(driver, 'a step runs the driver').not.to.equal(undefined);
    expect(existsSync(resolve(root, 'test/e2e/productionFaults.test.ts'))).to.equal(true);
  });
});
