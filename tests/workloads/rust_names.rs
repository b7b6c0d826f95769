// SPDX-License-Identifier: MIT
//! rust_names: Rust functions whose mangled names a report must demangle,
//! with a CPU split known by construction: Spinner<u32>::spin spins for 2
//! units and Spinner<u16>::spin for 1 unit of its thread's CPU time per
//! round (67/33), reached through main (t0213 builds it as crate "rs":
//! rs::main). Units of CPU time, not of loop iterations, as in
//! known_split.c: two loops at two code addresses do not run at the same
//! speed.
//!
//! usage: rust_names [MILLISECONDS]   (of CPU time, default 1000)
//!
//! t0213 builds it at test time twice, with the legacy mangling
//! (_ZN...17h<hash>E, which names both instantiations
//! rs::hot::Spinner<T>::spin) and with v0 (_R..., which tells them apart).
//! The volatile accesses keep the loop from being folded away.

/// A round is 3 units, 31 ms: a multiple of no usual sampling period.
const UNIT_NS: u64 = 10_333_333;

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

/// CPU time of the calling thread, in ns (CLOCK_THREAD_CPUTIME_ID).
fn cpu_time_ns() -> u64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    unsafe { clock_gettime(3, &mut ts) };
    ts.sec as u64 * 1_000_000_000 + ts.nsec as u64
}

mod hot {
    pub struct Spinner<T> {
        pub seed: T,
    }

    impl<T: Copy + Into<u64>> Spinner<T> {
        #[inline(never)]
        pub fn spin(&self, units: u32) -> u64 {
            let mut acc = [1u64, 2, 3, 4];
            let end = super::cpu_time_ns() + units as u64 * super::UNIT_NS;
            loop {
                for i in 0..2000u64 {
                    let k = (i & 3) as usize;
                    let v = unsafe { std::ptr::read_volatile(&acc[k]) }
                        .wrapping_mul(2862933555777941757)
                        .wrapping_add(3037000493 + self.seed.into());
                    unsafe { std::ptr::write_volatile(&mut acc[k], v) };
                }
                if super::cpu_time_ns() >= end {
                    break;
                }
            }
            acc[0] ^ acc[1] ^ acc[2] ^ acc[3]
        }
    }
}

fn main() {
    let ms: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let a = hot::Spinner { seed: 1u32 };
    let b = hot::Spinner { seed: 2u16 };
    let end = cpu_time_ns() + ms * 1_000_000;
    let mut total = 0u64;

    while cpu_time_ns() < end {
        total = total.wrapping_add(a.spin(2));
        total = total.wrapping_add(b.spin(1));
    }
    std::process::exit((total & 0) as i32);
}
