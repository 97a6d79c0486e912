// What the nginx renderer takes and gives. The renderer is pure: the agent (src/nginx-agent/) writes
// the files it returns, checks them with `nginx -t` and reloads.
import type { CompiledTable, SnapshotSecret } from '../compile/types';

export interface NginxGatewayInput {
  /** "namespace/name" */
  gateway: string;
  table: CompiledTable;
  secrets: readonly SnapshotSecret[];
}

export interface NginxRenderInput {
  gateways: readonly NginxGatewayInput[];
  /** added to every listener port (unprivileged runs, tests) */
  portOffset: number;
  /** the address nginx listens on, e.g. 0.0.0.0 */
  host: string;
  /** absolute directory every rendered file lives in (and nginx's prefix for its temp files) */
  dir: string;
  /** absolute path of the static njs script (switchyard.js) shipped with the project */
  njsScript: string;
  /** nginx's worker_processes ("auto" or a number) */
  workerProcesses: string;
  /** where the dynamic modules are (Debian: /usr/lib/nginx/modules) */
  modulesDir: string;
}

export interface RenderedFile {
  /** relative to `dir` */
  name: string;
  content: string;
  /** 0600 for certificates and keys */
  secret?: boolean;
}

export interface NginxRender {
  /** the main configuration, nginx.conf */
  main: string;
  /** the files it includes; names carry a digest of their content, so an unchanged part keeps its file */
  files: RenderedFile[];
  /** what nginx cannot honour exactly, in words (gateway, listener or rule, and why) */
  gaps: string[];
  /** a digest of the whole configuration, served at the status socket so a reload can be seen done */
  id: string;
}
