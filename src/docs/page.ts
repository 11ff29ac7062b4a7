// The HTML of the API reference page: Swagger UI with a selector between the payments API
// (openapi.json) and the control API (openapi.admin.json). Every URL is served by the sandbox.

export interface DocsPageOptions {
  /** Which document the selector opens on. */
  primary: 'api' | 'admin';
}

export const API_DOC_NAME = 'Payments API (openapi.json)';
export const ADMIN_DOC_NAME = 'Control API /_sandbox (openapi.admin.json)';

export function docsPage({ primary }: DocsPageOptions): string {
  const config = {
    urls: [
      { url: '/openapi.json', name: API_DOC_NAME },
      { url: '/openapi.admin.json', name: ADMIN_DOC_NAME },
    ],
    'urls.primaryName': primary === 'api' ? API_DOC_NAME : ADMIN_DOC_NAME,
    dom_id: '#swagger-ui',
    deepLinking: true,
    displayOperationId: true,
    // No badge fetched from validator.swagger.io: the page must work offline.
    validatorUrl: null,
    layout: 'StandaloneLayout',
  };
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>payments-sandbox API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
  <style>body { margin: 0; } .swagger-ui .topbar .download-url-wrapper { max-width: 640px; }</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(config)}, {
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    }));
  </script>
</body>
</html>
`;
}
