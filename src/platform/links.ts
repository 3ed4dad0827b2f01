/** Base URLs of the answering server, taken from the request. */
export interface Links {
  /** `http://host:port/v1` */
  api: string;
  /** `http://host:port/app`: where the web app would show a resource. */
  app: string;
  /** `http://host:port/published`: where published content would be served. */
  published: string;
  /** `http://host:port/files`: where files are downloaded, by signed URL. */
  files: string;
  /** `http://host:port/pdf`: where PDF exports are served, by signed URL. */
  pdf: string;
  /** `http://host:port/openapi`: where versions of OpenAPI specifications are served, by signed URL. */
  openapi: string;
}

/** The links of a server answering at `origin` (`http://host:port`). */
export function linksFor(origin: string): Links {
  return {
    api: `${origin}/v1`,
    app: `${origin}/app`,
    published: `${origin}/published`,
    files: `${origin}/files`,
    pdf: `${origin}/pdf`,
    openapi: `${origin}/openapi`,
  };
}
