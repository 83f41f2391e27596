//! The per-run secret canary names and numbers come from: 32 bytes from the OS, drawn when
//! the run's script is built (never stored in a plan or a result).

use std::io::Read;

use sha2::{Digest, Sha256};

/// A run's canary seed.
#[derive(Clone, PartialEq, Eq)]
pub struct Seed([u8; 32]);

impl std::fmt::Debug for Seed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Seed(…)")
    }
}

impl Seed {
    /// 32 bytes from `/dev/urandom`.
    pub fn from_os() -> std::io::Result<Seed> {
        let mut bytes = [0u8; 32];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
        Ok(Seed(bytes))
    }

    /// A fixed seed (tests only: a real run always uses [`Seed::from_os`]).
    pub fn fixed(bytes: [u8; 32]) -> Seed {
        Seed(bytes)
    }

    fn derive(&self, k: u32, slot: u8) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"taskc.canary/1");
        h.update(self.0);
        h.update(k.to_le_bytes());
        h.update([slot]);
        h.finalize().into()
    }

    /// 16 lowercase hex digits for canary `k`, slot `slot`.
    pub fn hex(&self, k: u32, slot: u8) -> String {
        hex::encode(&self.derive(k, slot)[..8])
    }

    /// A number below `n` (`n` > 0) for canary `k`, slot `slot`.
    pub fn index(&self, k: u32, slot: u8, n: usize) -> usize {
        let d = self.derive(k, slot);
        (u64::from_le_bytes([d[8], d[9], d[10], d[11], d[12], d[13], d[14], d[15]])
            % n.max(1) as u64) as usize
    }

    /// Two different numbers below 10^6 for canary `k`.
    pub fn numbers(&self, k: u32) -> (u32, u32) {
        let d = self.derive(k, 255);
        let a = u32::from_le_bytes([d[0], d[1], d[2], d[3]]) % 1_000_000;
        let mut b = u32::from_le_bytes([d[4], d[5], d[6], d[7]]) % 1_000_000;
        if b == a {
            b = (a + 1) % 1_000_000;
        }
        (a, b)
    }
}
