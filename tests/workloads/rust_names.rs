// SPDX-License-Identifier: MIT
//! rust_names: Rust functions whose mangled names a report must demangle,
//! with a CPU split known by construction: Spinner<u32>::spin does 2 units
//! and Spinner<u16>::spin 1 unit of identical work per round (67/33),
//! reached through main (t0213 builds it as crate "rs": rs::main).
//!
//! usage: rust_names [ROUNDS]   (default 20000, about 1 s of CPU)
//!
//! t0213 builds it at test time twice, with the legacy mangling
//! (_ZN...17h<hash>E, which names both instantiations
//! rs::hot::Spinner<T>::spin) and with v0 (_R..., which tells them apart).
//! The volatile accesses keep the loop from being folded away.

mod hot {
    pub struct Spinner<T> {
        pub seed: T,
    }

    impl<T: Copy + Into<u64>> Spinner<T> {
        #[inline(never)]
        pub fn spin(&self, units: u32) -> u64 {
            let mut acc = [1u64, 2, 3, 4];
            for u in 0..units {
                for i in 0..20000u64 {
                    let k = (i & 3) as usize;
                    let v = unsafe { std::ptr::read_volatile(&acc[k]) }
                        .wrapping_mul(2862933555777941757)
                        .wrapping_add(3037000493 + self.seed.into() + u as u64);
                    unsafe { std::ptr::write_volatile(&mut acc[k], v) };
                }
            }
            acc[0] ^ acc[1] ^ acc[2] ^ acc[3]
        }
    }
}

fn main() {
    let rounds: u32 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20000);
    let a = hot::Spinner { seed: 1u32 };
    let b = hot::Spinner { seed: 2u16 };
    let mut total = 0u64;

    for _ in 0..rounds {
        total = total.wrapping_add(a.spin(2));
        total = total.wrapping_add(b.spin(1));
    }
    std::process::exit((total & 0) as i32);
}
