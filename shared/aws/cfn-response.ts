/**
 * The CloudFormation custom resource protocol, for a Lambda that is its own service token:
 * CloudFormation waits until the function PUTs a result to the pre-signed S3 `ResponseURL`
 * of the event. Whatever happens, the function must answer (else the stack waits until the
 * resource's ServiceTimeout); a Delete always succeeds here (nothing to undo).
 *
 * The PUT carries an empty Content-Type: the URL's signature was computed without one, as
 * in AWS's own cfn-response module.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

export interface CfnResult {
  status: 'SUCCESS' | 'FAILED';
  /** Shown in the stack's events; required when FAILED. */
  reason?: string;
  physicalResourceId: string;
  /** Readable with Fn::GetAtt. */
  data?: Record<string, string | number>;
}

/** CloudFormation refuses response bodies over 4 KB; a reason is kept well inside that. */
const MAX_REASON = 1000;

/** The response document (pure). */
function cfnResponseBody(event: CloudFormationCustomResourceEvent, result: CfnResult): string {
  return JSON.stringify({
    Status: result.status,
    Reason: (result.reason ?? result.status).slice(0, MAX_REASON),
    PhysicalResourceId: result.physicalResourceId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    ...(result.data ? { Data: result.data } : {}),
  });
}

/** PUT the result to the event's ResponseURL; rejects when the URL does not answer 2xx. */
export function sendCfnResponse(event: CloudFormationCustomResourceEvent, result: CfnResult): Promise<void> {
  const body = cfnResponseBody(event, result);
  const url = new URL(event.ResponseURL);
  const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'PUT', headers: { 'content-type': '', 'content-length': Buffer.byteLength(body) }, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () =>
        (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300 ? resolve() : reject(new Error(`ResponseURL answered ${res.statusCode}`)),
      );
    });
    req.on('timeout', () => req.destroy(new Error('ResponseURL did not answer within 10 s')));
    req.on('error', reject);
    req.end(body);
  });
}
