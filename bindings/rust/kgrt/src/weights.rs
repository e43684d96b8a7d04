//! Weights: a GGUF or safetensors file, mapped and checked by kgrt
//! (kgrt_weights.h): its tensors and metadata.
use crate::error::{call, Error, Result, Status};
use crate::{cstring, str_from, sys, Dtype};
use std::path::Path;
use std::ptr::{self, NonNull};

/// A weight file's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightsFormat {
    Gguf,
    Safetensors,
    Other(u32),
}

/// One tensor of the file, borrowed from it.
#[derive(Clone, Copy, Debug)]
pub struct WeightInfo<'w> {
    /// As in the file.
    pub name: &'w str,
    /// The name in the other convention (GGUF / Hugging Face), if any.
    pub alias: Option<&'w str>,
    pub dtype: Dtype,
    /// Row-major, innermost last.
    pub shape: &'w [i64],
    pub numel: u64,
    /// The tensor's bytes in the mapping.
    pub data: &'w [u8],
}

/// An open weight file; unmapped when dropped. It may be dropped once the
/// models it was bound to have their weights (binding copies them).
pub struct Weights {
    raw: NonNull<sys::kgrt_weights_t>,
}

// SAFETY: a read-only mapping and tables that no call changes.
unsafe impl Send for Weights {}
unsafe impl Sync for Weights {}

impl Weights {
    /// Opens a .gguf, a .safetensors or a model.safetensors.index.json.
    pub fn open(path: impl AsRef<Path>) -> Result<Weights> {
        let path = path.as_ref();
        let p = cstring(
            "path",
            path.to_str().ok_or_else(|| {
                Error::new(
                    Status::InvalidArgument,
                    format!("path {} is not UTF-8", path.display()),
                )
            })?,
        )?;
        let mut raw = ptr::null_mut();
        // SAFETY: valid C string and out pointer; NULL allocator: malloc.
        call(|err| unsafe { sys::kgrt_weights_open(p.as_ptr(), ptr::null(), &mut raw, err) })?;
        Ok(Weights {
            raw: NonNull::new(raw).expect("kgrt_weights_open published NULL"),
        })
    }

    pub fn as_raw(&self) -> *const sys::kgrt_weights_t {
        self.raw.as_ptr()
    }

    pub fn format(&self) -> WeightsFormat {
        // SAFETY: valid weights.
        match unsafe { sys::kgrt_weights_format(self.raw.as_ptr()) } {
            sys::KGRT_WEIGHTS_FORMAT_GGUF => WeightsFormat::Gguf,
            sys::KGRT_WEIGHTS_FORMAT_SAFETENSORS => WeightsFormat::Safetensors,
            other => WeightsFormat::Other(other),
        }
    }

    /// The number of tensors.
    pub fn len(&self) -> usize {
        // SAFETY: valid weights.
        unsafe { sys::kgrt_weights_count(self.raw.as_ptr()) as usize }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn info(&self, p: *const sys::kgrt_weight_info_t) -> Option<WeightInfo<'_>> {
        if p.is_null() {
            return None;
        }
        // SAFETY: an info of this file, alive as long as self.
        let i = unsafe { &*p };
        let alias = unsafe { str_from(i.alias) };
        Some(WeightInfo {
            name: unsafe { str_from(i.name) },
            alias: if i.alias.is_null() { None } else { Some(alias) },
            dtype: Dtype::from_raw(i.dtype),
            shape: &i.shape[..(i.ndim as usize).min(sys::KGRT_WEIGHTS_MAX_DIMS)],
            numel: i.numel,
            // SAFETY: kgrt checked the tensor lies in the mapping.
            data: unsafe { std::slice::from_raw_parts(i.data as *const u8, i.bytes) },
        })
    }

    /// Tensor `i` in file order.
    pub fn get(&self, i: usize) -> Option<WeightInfo<'_>> {
        if i >= self.len() {
            return None;
        }
        // SAFETY: valid weights; i < count.
        self.info(unsafe { sys::kgrt_weights_at(self.raw.as_ptr(), i as u32) })
    }

    /// The tensor called `name` (in either naming convention).
    pub fn find(&self, name: &str) -> Option<WeightInfo<'_>> {
        let n = cstring("tensor", name).ok()?;
        // SAFETY: valid weights and C string.
        self.info(unsafe { sys::kgrt_weights_find(self.raw.as_ptr(), n.as_ptr()) })
    }

    pub fn iter(&self) -> impl Iterator<Item = WeightInfo<'_>> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i))
    }

    /// A string of the metadata, as the file stores it (not NUL-terminated).
    pub fn meta_string(&self, key: &str) -> Result<&[u8]> {
        let k = cstring("key", key)?;
        let mut s = ptr::null();
        let mut len = 0usize;
        // SAFETY: valid weights, C string and out pointers.
        call(|err| unsafe {
            sys::kgrt_weights_meta_string(self.raw.as_ptr(), k.as_ptr(), &mut s, &mut len, err)
        })?;
        // SAFETY: len bytes in the mapping, alive as long as self.
        Ok(unsafe { std::slice::from_raw_parts(s as *const u8, len) })
    }

    pub fn meta_int(&self, key: &str) -> Result<i64> {
        let k = cstring("key", key)?;
        let mut v = 0i64;
        // SAFETY: valid weights, C string and out pointer.
        call(|err| unsafe {
            sys::kgrt_weights_meta_int(self.raw.as_ptr(), k.as_ptr(), &mut v, err)
        })?;
        Ok(v)
    }

    pub fn meta_float(&self, key: &str) -> Result<f64> {
        let k = cstring("key", key)?;
        let mut v = 0f64;
        // SAFETY: valid weights, C string and out pointer.
        call(|err| unsafe {
            sys::kgrt_weights_meta_float(self.raw.as_ptr(), k.as_ptr(), &mut v, err)
        })?;
        Ok(v)
    }

    /// The strings of a string array (tokenizer.ggml.tokens).
    pub fn meta_strings(&self, key: &str) -> Result<Vec<&[u8]>> {
        let k = cstring("key", key)?;
        let mut a = sys::kgrt_meta_array_t {
            r#type: 0,
            count: 0,
            data: ptr::null(),
            next: ptr::null(),
            index: 0,
        };
        // SAFETY: valid weights, C string and out pointer.
        call(|err| unsafe {
            sys::kgrt_weights_meta_array(self.raw.as_ptr(), k.as_ptr(), &mut a, err)
        })?;
        if a.r#type != sys::KGRT_META_STRING {
            return Err(Error::new(
                Status::InvalidArgument,
                format!("metadata {} is not an array of strings", key),
            ));
        }
        let mut v = Vec::with_capacity(a.count.min(1 << 20) as usize);
        let (mut s, mut len) = (ptr::null(), 0usize);
        // SAFETY: the array's strings lie in the mapping, alive as long as self.
        while unsafe { sys::kgrt_meta_array_next_string(&mut a, &mut s, &mut len) } != 0 {
            v.push(unsafe { std::slice::from_raw_parts(s as *const u8, len) });
        }
        Ok(v)
    }

    /// The vocabulary size (metadata, else the embedding's rows).
    pub fn vocab_size(&self) -> Result<i64> {
        let mut v = 0i64;
        // SAFETY: valid weights and out pointer.
        call(|err| unsafe { sys::kgrt_weights_vocab_size(self.raw.as_ptr(), &mut v, err) })?;
        Ok(v)
    }
}

impl Drop for Weights {
    fn drop(&mut self) {
        // SAFETY: every borrow of the mapping ended with &self's.
        unsafe { sys::kgrt_weights_close(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Weights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Weights")
            .field("format", &self.format())
            .field("tensors", &self.len())
            .finish()
    }
}
