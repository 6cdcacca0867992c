//! nvprof's hardware events and the Nsight Compute counter that measures each on compute capability
//! 7.5 and newer, after NVIDIA's nvprof-to-Nsight-Compute event table. Events with no such counter
//! (per-subpartition or per-sub-pipe counts, profiler triggers, load widths) are listed as
//! unavailable with the reason, never approximated. Also the `--events` list parser.

use crate::error::{Error, Result};

/// One nvprof event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventDef {
    /// nvprof's name.
    pub name: &'static str,
    /// The Nsight Compute counter (with rollup) that counts the same thing; `None`: unavailable.
    pub counter: Option<&'static str>,
    /// What it counts, or why it is unavailable.
    pub description: &'static str,
}

const fn ev(name: &'static str, counter: &'static str, description: &'static str) -> EventDef {
    EventDef { name, counter: Some(counter), description }
}

const fn na(name: &'static str, description: &'static str) -> EventDef {
    EventDef { name, counter: None, description }
}

/// Every event nvprof listed on Volta (the last GPUs it profiled), in its order.
pub static EVENTS: &[EventDef] = &[
    ev("active_cycles", "sm__cycles_active.sum", "Number of cycles a multiprocessor has at least one active warp"),
    ev("active_cycles_pm", "sm__cycles_active.sum", "Number of cycles a multiprocessor has at least one active warp"),
    ev("active_cycles_sys", "sys__cycles_active.sum", "Number of cycles the system clock domain is active"),
    ev(
        "active_warps",
        "sm__warps_active.sum",
        "Accumulated number of active warps per cycle: every cycle adds the number of active warps",
    ),
    ev(
        "active_warps_pm",
        "sm__warps_active.sum",
        "Accumulated number of active warps per cycle: every cycle adds the number of active warps",
    ),
    ev("elapsed_cycles_sm", "sm__cycles_elapsed.sum", "Elapsed clocks of the multiprocessors"),
    ev("elapsed_cycles_pm", "sm__cycles_elapsed.sum", "Elapsed clocks of the multiprocessors"),
    ev("elapsed_cycles_sys", "sys__cycles_elapsed.sum", "Elapsed clocks of the system clock domain"),
    ev("inst_executed", "smsp__inst_executed.sum", "Number of instructions executed, per warp"),
    ev("thread_inst_executed", "smsp__thread_inst_executed.sum", "Number of instructions executed, per thread"),
    ev(
        "not_predicated_off_thread_inst_executed",
        "smsp__thread_inst_executed_pred_on.sum",
        "Number of instructions executed by threads whose predicate was on",
    ),
    ev("inst_issued0", "smsp__issue_inst0.sum", "Number of cycles that did not issue any instruction"),
    ev("inst_issued1", "smsp__issue_inst1.sum", "Number of cycles that issued one instruction"),
    ev("warps_launched", "smsp__warps_launched.sum", "Number of warps launched"),
    ev("threads_launched", "smsp__threads_launched.sum", "Number of threads launched"),
    ev("sm_cta_launched", "sm__ctas_launched.sum", "Number of thread blocks launched"),
    ev("global_load", "smsp__inst_executed_op_global_ld.sum", "Number of executed global load instructions, per warp"),
    ev(
        "global_store",
        "smsp__inst_executed_op_global_st.sum",
        "Number of executed global store instructions, per warp",
    ),
    ev("local_load", "smsp__inst_executed_op_local_ld.sum", "Number of executed local load instructions, per warp"),
    ev("local_store", "smsp__inst_executed_op_local_st.sum", "Number of executed local store instructions, per warp"),
    ev("shared_load", "smsp__inst_executed_op_shared_ld.sum", "Number of executed shared load instructions, per warp"),
    ev(
        "shared_store",
        "smsp__inst_executed_op_shared_st.sum",
        "Number of executed shared store instructions, per warp",
    ),
    ev(
        "generic_load",
        "smsp__inst_executed_op_generic_ld.sum",
        "Number of executed generic-address load instructions, per warp",
    ),
    ev(
        "generic_store",
        "smsp__inst_executed_op_generic_st.sum",
        "Number of executed generic-address store instructions, per warp",
    ),
    ev("gred_count", "smsp__inst_executed_op_global_red.sum", "Number of executed global reduction instructions"),
    ev("shared_atom", "smsp__inst_executed_op_shared_atom.sum", "Number of executed shared atomic instructions"),
    ev(
        "shared_ld_transactions",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "Number of shared memory load transactions (wavefronts)",
    ),
    ev(
        "shared_st_transactions",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "Number of shared memory store transactions (wavefronts)",
    ),
    ev(
        "shared_ld_bank_conflict",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "Number of shared memory bank conflicts of loads",
    ),
    ev(
        "shared_st_bank_conflict",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "Number of shared memory bank conflicts of stores",
    ),
    ev("branch", "smsp__sass_inst_executed_op_branch.sum", "Number of branch instructions executed, per warp"),
    ev(
        "divergent_branch",
        "smsp__sass_branch_targets_threads_divergent.sum",
        "Number of divergent branches within a warp",
    ),
    na("atom_count", "unavailable: Nsight Compute counts atomics by operation, not this total"),
    na("global_atom_cas", "unavailable: no Nsight Compute counter of global compare-and-swap alone"),
    na("shared_atom_cas", "unavailable: no Nsight Compute counter of shared compare-and-swap alone"),
    na("gld_inst_8bit", "unavailable: Nsight Compute does not count loads by width"),
    na("gld_inst_16bit", "unavailable: Nsight Compute does not count loads by width"),
    na("gld_inst_32bit", "unavailable: Nsight Compute does not count loads by width"),
    na("gld_inst_64bit", "unavailable: Nsight Compute does not count loads by width"),
    na("gld_inst_128bit", "unavailable: Nsight Compute does not count loads by width"),
    na("gst_inst_8bit", "unavailable: Nsight Compute does not count stores by width"),
    na("gst_inst_16bit", "unavailable: Nsight Compute does not count stores by width"),
    na("gst_inst_32bit", "unavailable: Nsight Compute does not count stores by width"),
    na("gst_inst_64bit", "unavailable: Nsight Compute does not count stores by width"),
    na("gst_inst_128bit", "unavailable: Nsight Compute does not count stores by width"),
    na("fb_subp0_read_sectors", "unavailable per subpartition: dram__sectors_read.sum counts all of them"),
    na("fb_subp1_read_sectors", "unavailable per subpartition: dram__sectors_read.sum counts all of them"),
    na("fb_subp0_write_sectors", "unavailable per subpartition: dram__sectors_write.sum counts all of them"),
    na("fb_subp1_write_sectors", "unavailable per subpartition: dram__sectors_write.sum counts all of them"),
    na(
        "l2_subp0_read_sector_misses",
        "unavailable per subpartition: lts__t_sectors_op_read_lookup_miss.sum counts all of them",
    ),
    na(
        "l2_subp1_read_sector_misses",
        "unavailable per subpartition: lts__t_sectors_op_read_lookup_miss.sum counts all of them",
    ),
    na(
        "l2_subp0_write_sector_misses",
        "unavailable per subpartition: lts__t_sectors_op_write_lookup_miss.sum counts all of them",
    ),
    na(
        "l2_subp1_write_sector_misses",
        "unavailable per subpartition: lts__t_sectors_op_write_lookup_miss.sum counts all of them",
    ),
    na(
        "l2_subp0_read_tex_sector_queries",
        "unavailable per subpartition: lts__t_sectors_srcunit_tex_op_read.sum counts all of them",
    ),
    na(
        "l2_subp0_write_tex_sector_queries",
        "unavailable per subpartition: lts__t_sectors_srcunit_tex_op_write.sum counts all of them",
    ),
    na("inst_executed_fma_pipe_s0", "unavailable per sub-pipe: smsp__inst_executed_pipe_fma.sum counts all of them"),
    na("inst_executed_fp16_pipe_s0", "unavailable per sub-pipe: smsp__inst_executed_pipe_fp16.sum counts all of them"),
    na("inst_executed_fp64_pipe_s0", "unavailable per sub-pipe: smsp__inst_executed_pipe_fp64.sum counts all of them"),
    na(
        "tensor_pipe_active_cycles_s0",
        "unavailable per sub-pipe: smsp__pipe_tensor_cycles_active.sum counts all of them",
    ),
    na("prof_trigger_00", "unavailable: profiler triggers have no Nsight Compute counter"),
    na("prof_trigger_01", "unavailable: profiler triggers have no Nsight Compute counter"),
    na("prof_trigger_02", "unavailable: profiler triggers have no Nsight Compute counter"),
    na("prof_trigger_03", "unavailable: profiler triggers have no Nsight Compute counter"),
    na("prof_trigger_04", "unavailable: profiler triggers have no Nsight Compute counter"),
    na("prof_trigger_05", "unavailable: profiler triggers have no Nsight Compute counter"),
    na("prof_trigger_06", "unavailable: profiler triggers have no Nsight Compute counter"),
    na("prof_trigger_07", "unavailable: profiler triggers have no Nsight Compute counter"),
];

/// Kepler's and Maxwell's events (compute capability 3.x-5.x) that Volta's nvprof no longer listed:
/// the counter that counts the same where one does, else why none does. Not listed by
/// `--query-events` nor taken by `all`; accepted by name, so a script written for those cards runs.
pub static OLDER: &[EventDef] = &[
    ev(
        "gld_request",
        "smsp__inst_executed_op_global_ld.sum",
        "Kepler's name of global_load: executed global load instructions, per warp",
    ),
    ev(
        "gst_request",
        "smsp__inst_executed_op_global_st.sum",
        "Kepler's name of global_store: executed global store instructions, per warp",
    ),
    ev(
        "l1_shared_bank_conflict",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
        "Kepler's count of shared-memory bank conflicts, loads and stores (Maxwell on: shared_ld_bank_conflict + shared_st_bank_conflict)",
    ),
    ev(
        "shared_load_replay",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "Kepler's replays of shared loads for bank conflicts: the extra passes, Maxwell's shared_ld_bank_conflict",
    ),
    ev(
        "shared_store_replay",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "Kepler's replays of shared stores for bank conflicts: the extra passes, Maxwell's shared_st_bank_conflict",
    ),
    na(
        "l1_global_load_hit",
        "unavailable: Kepler counted L1 hits in 128-byte lines; the unified L1 counts 32-byte sectors (the global_hit_rate metric)",
    ),
    na(
        "l1_global_load_miss",
        "unavailable: Kepler counted L1 misses in 128-byte lines; the unified L1 counts 32-byte sectors (the global_hit_rate metric)",
    ),
    na(
        "l1_local_load_hit",
        "unavailable: Kepler counted L1 hits in 128-byte lines; the unified L1 counts 32-byte sectors (the local_hit_rate metric)",
    ),
    na(
        "l1_local_load_miss",
        "unavailable: Kepler counted L1 misses in 128-byte lines; the unified L1 counts 32-byte sectors (the local_hit_rate metric)",
    ),
    na(
        "l1_local_store_hit",
        "unavailable: Kepler counted L1 hits in 128-byte lines; the unified L1 counts 32-byte sectors (the local_hit_rate metric)",
    ),
    na(
        "l1_local_store_miss",
        "unavailable: Kepler counted L1 misses in 128-byte lines; the unified L1 counts 32-byte sectors (the local_hit_rate metric)",
    ),
    na(
        "uncached_global_load_transaction",
        "unavailable: Kepler's loads around L1; every global load goes through the unified L1 since Maxwell (the gld_transactions metric)",
    ),
    na(
        "global_store_transaction",
        "unavailable: Kepler's stores of 32 to 128 bytes; the gst_transactions metric counts 32-byte sectors",
    ),
    na(
        "global_ld_mem_divergence_replays",
        "unavailable: instructions are not replayed on compute capability 7.0 and newer",
    ),
    na(
        "global_st_mem_divergence_replays",
        "unavailable: instructions are not replayed on compute capability 7.0 and newer",
    ),
];

/// The event of that name: Volta's, or an older card's.
pub fn lookup(name: &str) -> Option<&'static EventDef> {
    EVENTS.iter().chain(OLDER).find(|e| e.name == name)
}

/// Why an older card's count per subpartition or texture unit (`l2_subp3_read_sector_misses`,
/// `tex2_cache_sector_queries`, Kepler's four of each) is not available: the counters count all units
/// together.
fn per_unit(name: &str) -> Option<String> {
    let unit = ["l2_subp", "fb_subp", "tex"].into_iter().find(|p| {
        name.strip_prefix(p)
            .and_then(|rest| rest.split_once('_'))
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    })?;
    let what = if unit == "tex" { "texture unit" } else { "subpartition" };
    Some(format!("unavailable per {what}: Nsight Compute's counters count all of them together"))
}

/// An event to collect: nvprof's name and the counter behind it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestedEvent {
    /// The name asked for (nvprof's, or a raw Nsight Compute counter).
    pub name: String,
    /// The counter collected.
    pub counter: String,
}

/// Parses `--events`: nvprof names, raw Nsight Compute counters (`unit__counter.rollup`), or `all`
/// (every available event). An unavailable event is an error naming why, an unknown name too.
pub fn parse(spec: &str) -> Result<Vec<RequestedEvent>> {
    let mut out: Vec<RequestedEvent> = Vec::new();
    let mut push = |e: RequestedEvent| {
        if !out.iter().any(|o| o.name == e.name) {
            out.push(e);
        }
    };
    for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if item == "all" {
            for e in EVENTS {
                if let Some(c) = e.counter {
                    push(RequestedEvent { name: e.name.into(), counter: c.into() });
                }
            }
        } else if let Some(e) = lookup(item) {
            match e.counter {
                Some(c) => push(RequestedEvent { name: e.name.into(), counter: c.into() }),
                None => return Err(Error::usage(format!("event '{item}' is {}", e.description))),
            }
        } else if let Some(why) = per_unit(item) {
            return Err(Error::usage(format!("event '{item}' is {why}")));
        } else if item.contains("__")
            && item.contains('.')
            && item.chars().all(|c| c.is_ascii_alphanumeric() || "_.".contains(c))
        {
            push(RequestedEvent { name: item.into(), counter: item.into() });
        } else {
            return Err(Error::usage(format!(
                "unknown event '{item}': use an nvprof event name (`warpscope nvprof --query-events` lists them), a Nsight Compute counter such as smsp__warps_launched.sum, or all"
            )));
        }
    }
    if out.is_empty() {
        return Err(Error::usage(format!("--events '{spec}' names no event")));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_consistent() {
        let mut names: Vec<_> = EVENTS.iter().map(|e| e.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), EVENTS.len(), "duplicate event names");
        for e in EVENTS.iter().chain(OLDER) {
            match e.counter {
                Some(c) => assert!(c.contains("__") && c.ends_with(".sum"), "{}: {c}", e.name),
                None => assert!(e.description.starts_with("unavailable"), "{}", e.name),
            }
        }
    }

    #[test]
    fn older_cards_events_are_counted_or_refused_with_the_reason() {
        // A K40c's `--events` (nvprof-csv-events-metrics-k40c-cheby.csv) and the course book's.
        let e = parse("gld_request,l1_shared_bank_conflict,branch,divergent_branch").unwrap();
        assert_eq!(e[0].counter, "smsp__inst_executed_op_global_ld.sum");
        assert_eq!(e[1].counter, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum");
        for (name, why) in [
            ("l2_subp3_read_sector_misses", "per subpartition"),
            ("l2_subp2_write_l1_sector_queries", "per subpartition"),
            ("tex0_cache_sector_queries", "per texture unit"),
            ("l1_global_load_hit", "128-byte lines"),
            ("global_ld_mem_divergence_replays", "not replayed"),
        ] {
            let err = parse(name).unwrap_err().to_string();
            assert!(err.contains(why), "{name}: {err}");
        }
        assert!(parse("texture_cache_x").unwrap_err().to_string().contains("unknown event"));
        // `all` is Volta's list only.
        assert!(parse("all").unwrap().iter().all(|r| !OLDER.iter().any(|o| o.name == r.name)));
        for e in OLDER {
            assert!(!EVENTS.iter().any(|v| v.name == e.name), "{} is in both lists", e.name);
        }
    }

    #[test]
    fn events_parse() {
        let e = parse("warps_launched,branch,warps_launched").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].counter, "smsp__warps_launched.sum");
        let all = parse("all").unwrap();
        assert_eq!(all.len(), EVENTS.iter().filter(|e| e.counter.is_some()).count());
        assert_eq!(parse("sm__cycles_active.avg").unwrap()[0].counter, "sm__cycles_active.avg");
        let err = parse("gld_inst_32bit").unwrap_err().to_string();
        assert!(err.contains("unavailable") && err.contains("width"), "{err}");
        assert!(parse("bogus").unwrap_err().to_string().contains("unknown event 'bogus'"));
        assert!(parse(",").is_err());
    }
}
