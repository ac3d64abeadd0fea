// ElectroDB's own requests for the table `fixtures/pass/electrodb_task_app.yaml`
// describes: the items its puts write and the keys of its gets and
// queries, for sample values in mixed case. Printed as JSON (ElectroDB's
// `.params()`, which builds a request without sending it).
"use strict";
const { Entity } = require("electrodb");

const table = "TaskApp";
const Employee = new Entity(
  {
    model: { entity: "employee", version: "1", service: "taskapp" },
    attributes: {
      employee: { type: "string", required: true },
      firstName: { type: "string", required: true },
      office: { type: "string", required: true },
      title: { type: "string", required: true },
    },
    indexes: {
      employee: {
        pk: { field: "pk", composite: ["employee"] },
        sk: { field: "sk", composite: [] },
      },
      coworkers: {
        index: "gsi1",
        pk: { field: "gsi1pk", composite: ["office"] },
        sk: { field: "gsi1sk", composite: ["title", "employee"] },
      },
    },
  },
  { table },
);
const Task = new Entity(
  {
    model: { entity: "task", version: "1", service: "taskapp" },
    attributes: {
      task: { type: "string", required: true },
      project: { type: "string", required: true },
      employee: { type: "string", required: true },
      status: { type: ["open", "in-progress", "closed"], required: true },
      description: { type: "string" },
    },
    indexes: {
      task: {
        pk: { field: "pk", composite: ["task"] },
        sk: { field: "sk", composite: ["project", "employee"] },
      },
      assigned: {
        index: "gsi1",
        pk: { field: "gsi1pk", composite: ["employee"] },
        sk: { field: "gsi1sk", composite: ["status", "task"] },
      },
    },
  },
  { table },
);

const employees = [
  { employee: "JDoe-42", firstName: "Jane", office: "Gw Zoo", title: "Senior Engineer" },
  { employee: "tyler.walch", firstName: "Tyler", office: "gw zoo", title: "Engineer" },
  { employee: "ÉMILE_Ø", firstName: "Émile", office: "Straße 1", title: "Lead" },
];
const tasks = [
  { task: "T-100", project: "Alpha-1", employee: "JDoe-42", status: "open", description: "Write the spec" },
  { task: "t-101", project: "alpha-1", employee: "JDoe-42", status: "in-progress" },
  { task: "T-102", project: "Beta", employee: "tyler.walch", status: "open" },
];

const keyValues = (params) => params.ExpressionAttributeValues;
const out = {
  electrodb: require("electrodb/package.json").version,
  employees: employees.map((e) => ({
    given: e,
    item: Employee.put(e).params().Item,
    key: Employee.get({ employee: e.employee }).params().Key,
  })),
  tasks: tasks.map((t) => ({
    given: t,
    item: Task.put(t).params().Item,
    key: Task.get({ task: t.task, project: t.project, employee: t.employee }).params().Key,
  })),
  coworkers: keyValues(Employee.query.coworkers({ office: "GW ZOO" }).params()),
  assigned: keyValues(Task.query.assigned({ employee: "jdoe-42", status: "open" }).params()),
};
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
