// Run before every test file (vitest.config.ts setupFiles): what the file leaves behind on the
// machine is removed once its tests and their own hooks are done.
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dir';

afterAll(removeTempDirs);
