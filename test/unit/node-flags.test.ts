import { describe, expect, it } from 'vitest';
import { imageArgv } from '../support/image-command';
import { scriptNodeFlags } from '../support/process';

/** The flags in front of the script in an image's command: what node itself is told. */
function imageNodeFlags(argv: string[]): string[] {
  const node = argv.indexOf('node');
  return argv.slice(node + 1).filter((a, i, rest) => a.startsWith('--') && rest.slice(0, i).every((b) => b.startsWith('--')));
}

describe('the node flags the service runs with', () => {
  // the benchmarks start the npm scripts' flags: the image's commands must be the same processes
  it('are the same in the image and compose as in the npm script of the same role', () => {
    expect(imageNodeFlags(imageArgv())).toEqual(scriptNodeFlags('start'));
    expect(imageNodeFlags(imageArgv('api'))).toEqual(scriptNodeFlags('api'));
    expect(imageNodeFlags(imageArgv('worker'))).toEqual(scriptNodeFlags('worker'));
  });

  it('give V8 one background thread in every role', () => {
    for (const role of ['start', 'api', 'worker'] as const) expect(scriptNodeFlags(role)).toContain('--v8-pool-size=1');
  });
});
