/**
 * A stand-in instance for pg-job-lock.test.ts: holds a job lock and says "held" on stdout when it
 * has it, until it is killed. Arguments: database URL, instance name.
 */
import { holdJobLock } from '../../src/store/pg/job-lock.js';

const [url, instanceId] = process.argv.slice(2);
holdJobLock({
  url: url!,
  job: 'demoFeed',
  instanceId: instanceId!,
  intervalMs: 100,
  onChange: (held) => process.stdout.write(held ? 'held\n' : 'lost\n'),
});
