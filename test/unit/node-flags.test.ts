import { describe, expect, it } from 'vitest';
import { imageArgv } from '../support/image-command';
import { nodeFlagsOf, scriptNodeFlags } from '../support/process';

describe('the node flags the service runs with', () => {
  // the benchmarks start the npm scripts' flags: the image's commands must be the same processes
  it('are the same in the image and compose as in the npm script of the same role', () => {
    expect(nodeFlagsOf(imageArgv())).toEqual(scriptNodeFlags('start'));
    expect(nodeFlagsOf(imageArgv('api'))).toEqual(scriptNodeFlags('api'));
    expect(nodeFlagsOf(imageArgv('worker'))).toEqual(scriptNodeFlags('worker'));
  });

  it('give V8 one background thread in every role', () => {
    for (const role of ['start', 'api', 'worker'] as const) expect(scriptNodeFlags(role)).toContain('--v8-pool-size=1');
  });
});
