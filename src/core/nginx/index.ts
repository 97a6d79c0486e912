export { renderNginx, renderRoutes, routesKey, type RoutesRender } from './render';
export type { NginxRender, NginxRenderInput, NginxGatewayInput, RenderedFile } from './types';
