//! CUPTI's activity records inside the profiled program, as warpscope records: kernels, copies and sets
//! timed on the GPU and placed on the application's clock, and the runtime and driver API calls summed
//! per function for nvprof's "API calls" (and, for `--print-api-trace`, each call on the same clock).

use std::collections::HashMap;

use super::{STATE, State, lock};
use crate::nvprof::demangle::{KernelName, kernel_name};
use crate::nvprof::protocol::{ApiCall, ApiEvent, Message};
use crate::profile::cupti::{activity, callback};
use crate::record::{ActivityKind, Record, Status, TimeStats, Trace};
use crate::spec::Dim3;

/// Activity state, behind another lock (CUPTI's buffer thread).
pub(super) struct Act {
    pub(super) names: HashMap<String, KernelName>,
    pub(super) api: HashMap<(bool, u32), ApiCall>,
    pub(super) api_names: HashMap<(bool, u32), String>,
    pub(super) devices: Vec<u32>,
    pub(super) dropped: u64,
}

const COPY_KINDS: [&str; 11] = ["", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"];
const MEMORY_KINDS: [&str; 8] =
    ["Unknown", "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static"];

fn memory_kind(k: u32) -> String {
    MEMORY_KINDS.get(k as usize).copied().unwrap_or("Unknown").to_string()
}

/// A GPU activity's record: `name`, timed and placed by `span`, with `t`'s details.
fn activity_record(st: &State, kind: ActivityKind, name: KernelName, span: &activity::Span, t: Trace) -> Record {
    let duration = span.end.saturating_sub(span.start);
    Record {
        time_ms: TimeStats::from_samples(&[duration as f64 / 1e6]).map(|mut s| {
            s.samples.clear();
            s
        }),
        device: Some(span.device),
        signature: name.signature(),
        trace: Some(Trace {
            kind,
            pid: st.pid,
            start_ns: Some(st.since_launch(span.start)),
            duration_ns: Some(duration),
            context: span.context,
            stream: span.stream,
            correlation: span.correlation,
            ..t
        }),
        // A copy or set has no launch shape; a kernel's is set by the caller. Which launch of its
        // kernel it is (`invocation`) is counted when the process's records are joined.
        ..Record::unshaped(&name.short, "", Status::Ok)
    }
}

pub(super) fn on_activity(records: Vec<activity::Record>, dropped: usize) {
    let Some(st) = STATE.get() else { return };
    let mut act = lock(&st.act);
    act.dropped += dropped as u64;
    let mut msgs = Vec::new();
    for r in records {
        match r {
            activity::Record::Kernel(k) => {
                let name = act.names.entry(k.name.clone()).or_insert_with(|| kernel_name(&k.name)).clone();
                let t = Trace {
                    symbol: (k.name != name.short).then(|| k.name.clone()),
                    registers: Some(k.registers),
                    static_smem: Some(k.static_smem),
                    dynamic_smem: Some(k.dynamic_smem),
                    graph_node: k.graph_node,
                    ..Trace::default()
                };
                let mut rec = activity_record(st, ActivityKind::Kernel, name, &k.span, t);
                rec.grid = Some(Dim3::new(k.grid[0], k.grid[1], k.grid[2]));
                rec.block = Some(Dim3::new(k.block[0], k.block[1], k.block[2]));
                msgs.push(Message::Record(Box::new(rec)));
            }
            activity::Record::Memcpy(m) => {
                let kind = COPY_KINDS.get(m.copy_kind as usize).copied().filter(|k| !k.is_empty()).unwrap_or("Unknown");
                let t = Trace {
                    bytes: Some(m.bytes),
                    src_kind: Some(memory_kind(m.src_kind.into())),
                    dst_kind: Some(memory_kind(m.dst_kind.into())),
                    ..Trace::default()
                };
                let name = KernelName::plain(&format!("[CUDA memcpy {kind}]"));
                msgs.push(Message::Record(Box::new(activity_record(st, ActivityKind::Memcpy, name, &m.span, t))));
            }
            activity::Record::Memset(m) => {
                let t = Trace {
                    bytes: Some(m.bytes),
                    src_kind: Some(memory_kind(m.memory_kind.into())),
                    ..Trace::default()
                };
                let name = KernelName::plain("[CUDA memset]");
                msgs.push(Message::Record(Box::new(activity_record(st, ActivityKind::Memset, name, &m.span, t))));
            }
            activity::Record::Api(a) => {
                let lib = st.lib;
                let name = act
                    .api_names
                    .entry((a.driver, a.cbid))
                    .or_insert_with(|| api_name(&callback::api_name(lib, a.driver, a.cbid)))
                    .clone();
                let d = a.end.saturating_sub(a.start);
                if st.cfg.api_trace {
                    msgs.push(Message::ApiCall(ApiEvent {
                        name: name.clone(),
                        start_ns: st.since_launch(a.start),
                        duration_ns: d,
                        correlation: a.correlation,
                    }));
                }
                let e = act.api.entry((a.driver, a.cbid)).or_insert_with(|| ApiCall {
                    name,
                    min_ns: u64::MAX,
                    ..ApiCall::default()
                });
                e.calls += 1;
                e.total_ns += d;
                e.min_ns = e.min_ns.min(d);
                e.max_ns = e.max_ns.max(d);
            }
        }
    }
    drop(act);
    if !msgs.is_empty() {
        st.emit(&msgs);
    }
}

/// CUPTI's function name as nvprof printed it: `cudaMalloc_v3020` -> `cudaMalloc`.
fn api_name(cupti: &str) -> String {
    match cupti.rfind("_v") {
        Some(i) if i > 0 && cupti[i + 2..].chars().all(|c| c.is_ascii_digit()) && cupti.len() > i + 2 => {
            cupti[..i].to_string()
        }
        _ => cupti.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_names_lose_cuptis_version_suffix() {
        assert_eq!(api_name("cudaMalloc_v3020"), "cudaMalloc");
        assert_eq!(api_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
        assert_eq!(api_name("cuDeviceTotalMem_v2"), "cuDeviceTotalMem");
        assert_eq!(api_name("cuLaunchKernel"), "cuLaunchKernel");
        assert_eq!(api_name("cudaLaunchKernel_ptsz_v7000"), "cudaLaunchKernel_ptsz");
        assert_eq!(api_name("weird_v"), "weird_v");
    }
}
