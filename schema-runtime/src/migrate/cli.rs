//! A command line for a spec's migration jobs, for the binary that runs
//! them (generated `migrations::main` calls [`main`]):
//!
//! ```text
//! <binary> list
//! <binary> run <job> [--worker I --workers W | --segment S] [--total-segments T]
//!                    [--page-size N] [--in-flight N] [--max-rcu N] [--max-wcu N] [--budget-per-table]
//!                    [--lease-seconds N] [--table NAME] [--source-table NAME]
//!                    [--control-table NAME] [--live]
//! <binary> status <job>          # exit 0 when every segment is done
//! <binary> verify <job> [--segments N] [--live]   # exit 0 when nothing is left
//! <binary> reset-segment <job> <S>
//! ```
//!
//! A run is dry (reads, decides, counts, writes nothing) unless `--live`.
//! `--worker`/`--workers` default to AWS Batch's `AWS_BATCH_JOB_ARRAY_INDEX`
//! and `AWS_BATCH_JOB_ARRAY_SIZE`, or Kubernetes' `JOB_COMPLETION_INDEX`
//! (with `--workers`), so an array job needs no arguments of its own.

use std::process::ExitCode;
use std::time::Duration;

use super::{Counts, Job, Limits, Runner};

/// Runs the command line in `std::env::args()` over `jobs`, on `table`
/// (`--table` overrides it).
pub async fn main(client: crate::sdk::Client, table: &str, jobs: Vec<Box<dyn Job>>) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    run(client, table, &jobs, &args).await
}

/// The parsed options of a command.
#[derive(Debug, Default)]
struct Options {
    worker: Option<u32>,
    workers: Option<u32>,
    segment: Option<u32>,
    total: Option<u32>,
    page_size: Option<i32>,
    in_flight: Option<usize>,
    limits: Limits,
    per_table: bool,
    lease: Option<u64>,
    table: Option<String>,
    source: Option<String>,
    control: Option<String>,
    live: bool,
    segments: Option<u32>,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let mut value = || {
            rest.next()
                .ok_or_else(|| format!("{flag} needs a value"))
                .cloned()
        };
        let number = |v: String| -> Result<u64, String> {
            v.parse()
                .map_err(|_| format!("{flag}: `{v}` is not a number"))
        };
        let small = |v: u64| u32::try_from(v).map_err(|_| format!("{flag}: {v} is too large"));
        match flag.as_str() {
            "--worker" => o.worker = Some(small(number(value()?)?)?),
            "--workers" => o.workers = Some(small(number(value()?)?)?),
            "--segment" => o.segment = Some(small(number(value()?)?)?),
            "--total-segments" => o.total = Some(small(number(value()?)?)?),
            "--segments" => o.segments = Some(small(number(value()?)?)?),
            "--page-size" => {
                o.page_size = Some(
                    i32::try_from(number(value()?)?)
                        .map_err(|_| "--page-size: too large".to_owned())?,
                )
            }
            "--in-flight" => {
                o.in_flight = Some(
                    usize::try_from(number(value()?)?)
                        .map_err(|_| "--in-flight: too large".to_owned())?,
                )
            }
            "--max-rcu" => o.limits.max_rcu = Some(number(value()?)? as f64),
            "--max-wcu" => o.limits.max_wcu = Some(number(value()?)? as f64),
            "--budget-per-table" => o.per_table = true,
            "--lease-seconds" => o.lease = Some(number(value()?)?),
            "--table" => o.table = Some(value()?),
            "--source-table" => o.source = Some(value()?),
            "--control-table" => o.control = Some(value()?),
            "--live" => o.live = true,
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u32>().ok());
    o.worker = o
        .worker
        .or_else(|| env("AWS_BATCH_JOB_ARRAY_INDEX"))
        .or_else(|| env("JOB_COMPLETION_INDEX"));
    o.workers = o.workers.or_else(|| env("AWS_BATCH_JOB_ARRAY_SIZE"));
    Ok(o)
}

/// The command line `args` over `jobs`.
pub(crate) async fn run(
    client: crate::sdk::Client,
    table: &str,
    jobs: &[Box<dyn Job>],
    args: &[String],
) -> ExitCode {
    let (command, rest) = match args.split_first() {
        Some((c, rest)) => (c.as_str(), rest),
        None => ("list", &[][..]),
    };
    if command == "list" {
        for job in jobs {
            println!("{}: {}", job.id(), job.description());
        }
        return ExitCode::SUCCESS;
    }
    let Some((name, rest)) = rest.split_first() else {
        eprintln!("error: `{command}` needs a job (`list` shows them)");
        return ExitCode::from(2);
    };
    let Some(job) = jobs.iter().find(|j| j.id() == name) else {
        eprintln!("error: no job `{name}` (`list` shows them)");
        return ExitCode::from(2);
    };
    let (segment_arg, rest) = match (command, rest.split_first()) {
        ("reset-segment", Some((s, rest))) => (s.parse::<u32>().ok(), rest),
        _ => (None, rest),
    };
    let options = match parse_options(rest) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let runner = runner(client, table, job.as_ref(), &options);
    let result = match command {
        "run" => run_job(&progress(runner), &options).await,
        "status" => status(&runner).await,
        "verify" => verify(&runner, &options).await,
        "reset-segment" => match segment_arg {
            Some(s) => runner.reset_segment(s).await.map(|()| {
                println!("segment {s} reset: the next run reads it from its start");
                true
            }),
            None => {
                eprintln!("error: reset-segment <job> <segment>");
                return ExitCode::from(2);
            }
        },
        other => {
            eprintln!(
                "error: unknown command `{other}` (list, run, status, verify, reset-segment)"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// The run's progress on stderr: a bar (segments done, the counts so far)
/// with the `progress` feature when stderr is a terminal; otherwise a line
/// at most every five seconds.
fn progress(runner: Runner<'_>) -> Runner<'_> {
    use std::sync::Mutex;
    let started = std::time::Instant::now();
    let totals: Mutex<std::collections::BTreeMap<u32, (Counts, bool)>> = Mutex::default();
    #[cfg(feature = "progress")]
    let bar = {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} segments  {msg}  [{elapsed}]",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    };
    let last_line = Mutex::new(started);
    runner.on_progress(move |p| {
        let Ok(mut totals) = totals.lock() else {
            return;
        };
        totals.insert(p.segment, (p.counts, p.done));
        let counts = totals
            .values()
            .fold(Counts::default(), |sum, (c, _)| sum.plus(*c));
        let done = totals.values().filter(|(_, done)| *done).count();
        let rate = counts.scanned as f64 / started.elapsed().as_secs_f64().max(0.001);
        let message = format!("{counts} ({rate:.0} items/s)");
        #[cfg(feature = "progress")]
        {
            bar.set_length(u64::from(p.total_segments));
            bar.set_position(done as u64);
            bar.set_message(message.clone());
            if !bar.is_hidden() {
                return;
            }
        }
        if let Ok(mut last) = last_line.lock() {
            if last.elapsed() >= Duration::from_secs(5)
                || (p.done && done as u32 == p.total_segments)
            {
                *last = std::time::Instant::now();
                eprintln!(
                    "{done}/{} segments done by this worker or before it: {message}",
                    p.total_segments
                );
            }
        }
    })
}

fn runner<'j>(
    client: crate::sdk::Client,
    table: &str,
    job: &'j dyn Job,
    o: &Options,
) -> Runner<'j> {
    let workers = o.workers.unwrap_or(1);
    let limits = if o.per_table {
        o.limits.per_worker(workers)
    } else {
        o.limits
    };
    let mut runner = Runner::new(client, o.table.as_deref().unwrap_or(table), job)
        .live(o.live)
        .limits(limits);
    if let Some(t) = o.total {
        runner = runner.total_segments(t);
    }
    if let Some(p) = o.page_size {
        runner = runner.page_size(p);
    }
    if let Some(n) = o.in_flight {
        runner = runner.in_flight(n);
    }
    if let Some(l) = o.lease {
        runner = runner.lease(Duration::from_secs(l));
    }
    if let Some(c) = &o.control {
        runner = runner.control_table(c.clone());
    }
    if let Some(s) = &o.source {
        runner = runner.source_table(s.clone());
    }
    runner
}

async fn run_job(runner: &Runner<'_>, o: &Options) -> Result<bool, crate::Error> {
    let reports = match o.segment {
        Some(s) => runner.run_segment(s).await?.into_iter().collect(),
        None => {
            runner
                .run_worker(o.worker.unwrap_or(0), o.workers.unwrap_or(1))
                .await?
        }
    };
    let mut total = Counts::default();
    for r in &reports {
        eprintln!("segment {}: {}", r.segment, r.counts);
        total = total.plus(r.counts);
    }
    let mode = if o.live {
        ""
    } else {
        " (dry run: nothing written)"
    };
    println!("{} segment(s): {total}{mode}", reports.len());
    Ok(true)
}

async fn status(runner: &Runner<'_>) -> Result<bool, crate::Error> {
    let segments = runner.status().await?;
    let mut total = Counts::default();
    let mut done = 0;
    for s in &segments {
        let state = if s.done { "done" } else { "running" };
        println!(
            "segment {}: {state}, page {}, {}",
            s.segment, s.page, s.counts
        );
        for example in &s.examples {
            println!("  invalid: {example}");
        }
        total = total.plus(s.counts);
        done += usize::from(s.done);
    }
    println!("{done} of {} segment(s) done: {total}", segments.len());
    Ok(!segments.is_empty() && done == segments.len())
}

async fn verify(runner: &Runner<'_>, o: &Options) -> Result<bool, crate::Error> {
    let remaining = runner.verify(o.segments.unwrap_or(8)).await?;
    for example in &remaining.examples {
        println!("left: {example}");
    }
    println!(
        "{} item(s) read, {} left",
        remaining.scanned, remaining.count
    );
    Ok(remaining.count == 0)
}

#[cfg(test)]
mod tests {
    use super::parse_options;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options_parse_and_refuse() {
        let o = parse_options(&args(
            "--worker 2 --workers 4 --max-rcu 100 --live --page-size 25",
        ))
        .unwrap();
        assert_eq!(
            (o.worker, o.workers, o.page_size, o.live),
            (Some(2), Some(4), Some(25), true)
        );
        assert_eq!(o.limits.max_rcu, Some(100.0));
        assert!(parse_options(&args("--worker x"))
            .unwrap_err()
            .contains("not a number"));
        assert!(parse_options(&args("--frobnicate"))
            .unwrap_err()
            .contains("unknown option"));
        assert!(parse_options(&args("--workers"))
            .unwrap_err()
            .contains("needs a value"));
    }
}
