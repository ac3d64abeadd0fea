// Evaluates IAM requests with @cloud-copilot/iam-simulate (installed by
// scripts/iam-check/install; AGPL-3.0, so it runs only as this separate
// test-time process and is never vendored).
//
// stdin:  [{ "policy": <identity policy>, "action": "dynamodb:Query",
//            "resource": "<arn>", "accountId": "123456789012",
//            "principal": "<arn>", "context": { "<key>": <value> } }, ...]
// stdout: ["Allowed" | "ExplicitlyDenied" | "ImplicitlyDenied" | "Error: ...", ...]
//         one result per request, in order.
//
// Usage: node simulate.mjs <.tools/iam-check directory> < requests.json
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const tools = process.argv[2]
if (!tools) {
  console.error('usage: node simulate.mjs <iam-check tools directory> < requests.json')
  process.exit(2)
}
const require = createRequire(path.join(tools, 'node', 'package.json'))
const entry = require.resolve('@cloud-copilot/iam-simulate')
const { runSimulation } = await import(pathToFileURL(entry).href)

let input = ''
for await (const chunk of process.stdin) input += chunk
const requests = JSON.parse(input)

const results = []
for (const request of requests) {
  const response = await runSimulation(
    {
      identityPolicies: [{ name: 'generated', policy: request.policy }],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      request: {
        action: request.action,
        principal: request.principal,
        resource: { accountId: request.accountId, resource: request.resource },
        contextVariables: request.context
      }
    },
    {}
  )
  if (response.resultType === 'error') {
    results.push('Error: ' + JSON.stringify(response.errors))
  } else {
    results.push(response.overallResult)
  }
}
process.stdout.write(JSON.stringify(results))
