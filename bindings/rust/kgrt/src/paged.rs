//! KvPool, KvSeq and Batch: batched serving on a paged KV cache
//! (kgrt_paged.h). A sequence borrows its pool, a batch too, so neither can
//! outlive it.
use crate::error::{call, Result};
use crate::{sys, Model};
use std::marker::PhantomData;
use std::ptr::{self, NonNull};

/// A pool of KV-cache blocks.
pub struct KvPool {
    raw: NonNull<sys::kgrt_kv_pool_t>,
}

// SAFETY: host memory only, used through &mut or by one thread at a time.
unsafe impl Send for KvPool {}

impl KvPool {
    /// `blocks` blocks of `block_size` tokens; a sequence holds at most
    /// `max_blocks` of them.
    pub fn new(blocks: u32, block_size: u32, max_blocks: u32) -> Result<KvPool> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid out pointer; NULL allocator: malloc.
        call(|err| unsafe {
            sys::kgrt_kv_pool_create(blocks, block_size, max_blocks, ptr::null(), &mut raw, err)
        })?;
        Ok(KvPool {
            raw: NonNull::new(raw).expect("kgrt_kv_pool_create published NULL"),
        })
    }

    pub fn free_blocks(&self) -> u32 {
        // SAFETY: valid pool.
        unsafe { sys::kgrt_kv_pool_free_blocks(self.raw.as_ptr()) }
    }

    pub fn block_size(&self) -> u32 {
        // SAFETY: valid pool.
        unsafe { sys::kgrt_kv_pool_block_size(self.raw.as_ptr()) }
    }

    pub fn max_blocks(&self) -> u32 {
        // SAFETY: valid pool.
        unsafe { sys::kgrt_kv_pool_max_blocks(self.raw.as_ptr()) }
    }

    /// A new, empty sequence of this pool.
    pub fn seq(&self) -> Result<KvSeq<'_>> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid pool and out pointer. The C call takes the pool
        // mutably; sequences share it as kgrt allows (one thread).
        call(|err| unsafe { sys::kgrt_kv_seq_create(self.raw.as_ptr(), &mut raw, err) })?;
        Ok(KvSeq {
            raw: NonNull::new(raw).expect("kgrt_kv_seq_create published NULL"),
            _pool: PhantomData,
        })
    }
}

impl Drop for KvPool {
    fn drop(&mut self) {
        // SAFETY: every sequence borrowing the pool was dropped first.
        unsafe { sys::kgrt_kv_pool_destroy(self.raw.as_ptr()) }
    }
}

/// One sequence's block table; gives its blocks back when dropped.
pub struct KvSeq<'p> {
    raw: NonNull<sys::kgrt_kv_seq_t>,
    _pool: PhantomData<&'p KvPool>,
}

impl<'p> KvSeq<'p> {
    /// Holds blocks for `tokens` tokens, all or none.
    pub fn reserve(&mut self, tokens: u32) -> Result<()> {
        // SAFETY: valid sequence.
        call(|err| unsafe { sys::kgrt_kv_seq_reserve(self.raw.as_ptr(), tokens, err) })
    }

    /// A new sequence sharing the full blocks of this one's first `tokens`.
    pub fn fork(&mut self, tokens: u32) -> Result<KvSeq<'p>> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid sequence and out pointer.
        call(|err| unsafe { sys::kgrt_kv_seq_fork(self.raw.as_ptr(), tokens, &mut raw, err) })?;
        Ok(KvSeq {
            raw: NonNull::new(raw).expect("kgrt_kv_seq_fork published NULL"),
            _pool: PhantomData,
        })
    }

    /// Its block table.
    pub fn blocks(&self) -> &[i32] {
        let mut n = 0u32;
        // SAFETY: the table lives until the next reserve (&mut self).
        let p = unsafe { sys::kgrt_kv_seq_blocks(self.raw.as_ptr(), &mut n) };
        if p.is_null() || n == 0 {
            return &[];
        }
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }

    /// The tokens its blocks hold.
    pub fn capacity(&self) -> u32 {
        // SAFETY: valid sequence.
        unsafe { sys::kgrt_kv_seq_capacity(self.raw.as_ptr()) }
    }

    /// Tokens at its start whose blocks it shares from a fork.
    pub fn shared(&self) -> u32 {
        // SAFETY: valid sequence.
        unsafe { sys::kgrt_kv_seq_shared(self.raw.as_ptr()) }
    }
}

impl Drop for KvSeq<'_> {
    fn drop(&mut self) {
        // SAFETY: the sequence is not used after this.
        unsafe { sys::kgrt_kv_seq_destroy(self.raw.as_ptr()) }
    }
}

/// One sequence's sampling in a step (temperature <= 0: the argmax).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampling {
    pub temperature: f32,
    pub top_k: i32,
    pub top_p: f32,
    pub min_p: f32,
    pub seed: i32,
}

impl Default for Sampling {
    fn default() -> Sampling {
        Sampling {
            temperature: 0.0,
            top_k: 0,
            top_p: 1.0,
            min_p: 0.0,
            seed: 0,
        }
    }
}

/// One step of a batched table: tokens of several sequences of a pool.
pub struct Batch<'p> {
    raw: NonNull<sys::kgrt_batch_t>,
    _pool: PhantomData<&'p KvPool>,
}

impl<'p> Batch<'p> {
    pub fn new(pool: &'p KvPool, max_tokens: u32, max_seqs: u32) -> Result<Batch<'p>> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid pool and out pointer.
        call(|err| unsafe {
            sys::kgrt_batch_create(
                pool.raw.as_ptr(),
                max_tokens,
                max_seqs,
                ptr::null(),
                &mut raw,
                err,
            )
        })?;
        Ok(Batch {
            raw: NonNull::new(raw).expect("kgrt_batch_create published NULL"),
            _pool: PhantomData,
        })
    }

    pub fn clear(&mut self) {
        // SAFETY: valid batch.
        unsafe { sys::kgrt_batch_clear(self.raw.as_ptr()) }
    }

    /// Adds `tokens` of `seq` at positions pos0.., sampled after the last
    /// with `sampling` (None: greedy); its row in the step's outputs.
    pub fn add(
        &mut self,
        seq: &KvSeq<'p>,
        tokens: &[i32],
        pos0: u32,
        sampling: Option<&Sampling>,
    ) -> Result<u32> {
        let s = sampling.map(|s| sys::kgrt_sampling_t {
            temperature: s.temperature,
            top_p: s.top_p,
            min_p: s.min_p,
            top_k: s.top_k,
            seed: s.seed,
        });
        let sp = s.as_ref().map_or(ptr::null(), |s| s as *const _);
        let n = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
        let mut row = 0u32;
        // SAFETY: tokens holds n values; valid batch, sequence and out pointer.
        call(|err| unsafe {
            sys::kgrt_batch_add(
                self.raw.as_ptr(),
                seq.raw.as_ptr(),
                tokens.as_ptr(),
                n,
                pos0,
                sp,
                &mut row,
                err,
            )
        })?;
        Ok(row)
    }

    pub fn tokens(&self) -> u32 {
        // SAFETY: valid batch.
        unsafe { sys::kgrt_batch_tokens(self.raw.as_ptr()) }
    }

    pub fn sequences(&self) -> u32 {
        // SAFETY: valid batch.
        unsafe { sys::kgrt_batch_sequences(self.raw.as_ptr()) }
    }

    /// Sets the model's dims and binds its step inputs.
    pub fn bind(&self, model: &mut Model<'_, '_>) -> Result<()> {
        // SAFETY: valid batch and model.
        call(|err| unsafe { sys::kgrt_batch_bind(self.raw.as_ptr(), model.as_raw(), err) })
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        // SAFETY: the batch is not used after this.
        unsafe { sys::kgrt_batch_destroy(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for KvPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KvPool")
            .field("free_blocks", &self.free_blocks())
            .finish()
    }
}

impl std::fmt::Debug for KvSeq<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KvSeq")
            .field("blocks", &self.blocks())
            .finish()
    }
}

impl std::fmt::Debug for Batch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("tokens", &self.tokens())
            .field("sequences", &self.sequences())
            .finish()
    }
}
