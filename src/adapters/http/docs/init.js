// Starts Swagger UI on the served spec. It lives in its own file because the page's
// Content-Security-Policy allows no inline script.
window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  // the default sends the spec to an outside validator and shows its badge
  validatorUrl: null,
  // a kind's operations are many; the filter box narrows them by tag (kind)
  filter: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  defaultModelExpandDepth: 3,
  displayRequestDuration: true,
  tryItOutEnabled: false,
});
