/** Generates the OpenAPI document from the real app over a throwaway embedded database. */
import { buildApp } from '../../src/server.ts';
import { parseConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { servicesFor } from '../../src/main.ts';

export async function generateOpenApi(): Promise<string> {
  const database = await openDatabase({ dataDir: 'memory://' });
  try {
    const app = await buildApp({
      services: servicesFor(parseConfig({}), database, 'x'.repeat(32)),
      logger: false,
    });
    await app.ready();
    const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
    await app.close();
    return text;
  } finally {
    await database.close();
  }
}
