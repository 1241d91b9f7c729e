// The Kubernetes example in deploy/kubernetes, checked against the Kubernetes
// API schemas (kubernetes-models) and against what Switchboard needs of it:
// probes on the routes the server answers, a migration Job, a disruption
// budget, graceful stops, settings from a Secret.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const DIR = path.resolve(import.meta.dirname, '../../deploy/kubernetes');

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, any>;
}

const manifests: Manifest[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) =>
    parseAllDocuments(readFileSync(path.join(DIR, f), 'utf8')).map((d) => {
      expect(d.errors, f).toEqual([]);
      return d.toJS() as Manifest;
    }),
  );

/** The schema class of a manifest: `apps/v1` + `Deployment` → kubernetes-models/apps/v1/Deployment. */
async function modelOf(m: Manifest): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = m.apiVersion.includes('/') ? m.apiVersion.split('/') : ['', m.apiVersion];
  const module = await import(`kubernetes-models/${group ? `${group}/` : ''}${version}/${m.kind}`);
  return module[m.kind] ?? module.default;
}

const find = (kind: string, name = 'switchboard') => {
  const m = manifests.find((x) => x.kind === kind && x.metadata.name === name);
  expect(m, `${kind} ${name}`).toBeDefined();
  return m!;
};

describe('the Kubernetes example', () => {
  it('is valid against the Kubernetes API schemas, every document of every file', async () => {
    expect(manifests.length).toBeGreaterThanOrEqual(5);
    for (const m of manifests) {
      const Model = await modelOf(m);
      expect(() => new Model(m).validate(), `${m.kind} ${m.metadata.name}`).not.toThrow();
    }
  });

  it('the schema check catches a broken manifest (the check itself works)', async () => {
    const deployment = structuredClone(find('Deployment'));
    deployment.spec!.replicas = 'three';
    const Model = await modelOf(deployment);
    expect(() => new Model(deployment).validate()).toThrow();
  });

  it('probes the routes the server answers, stops within its grace period, and reads its settings from the Secret', () => {
    const pod = find('Deployment').spec!.template.spec;
    const [container] = pod.containers;
    expect(container.args).toEqual(['serve']);
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    // The server's stop: 5 s of preStop, up to 10 s for requests in flight, then the queue and the pool.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
    expect(container.envFrom).toEqual([{ secretRef: { name: 'switchboard-env' } }]);
    const secret = find('Secret', 'switchboard-env');
    expect(Object.keys((secret as any).stringData)).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'SWITCHBOARD_SECRET', 'PUBLIC_URL']),
    );
  });

  it('runs the migrations as a Job of the same image, and keeps all but one replica through a disruption', () => {
    const job = find('Job', 'switchboard-migrate').spec!.template.spec.containers[0];
    expect(job.args).toEqual(['migrate']);
    expect(job.image).toBe(find('Deployment').spec!.template.spec.containers[0].image);
    const pdb = find('PodDisruptionBudget').spec!;
    expect(pdb.maxUnavailable).toBe(1);
    expect(pdb.selector.matchLabels).toEqual(find('Deployment').spec!.selector.matchLabels);
    expect(find('Service').spec!.selector).toEqual(find('Deployment').spec!.selector.matchLabels);
  });
});
