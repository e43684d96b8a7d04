//! Model: a table loaded on a device: dims, bindings, runs, the device loop,
//! profiles and the caller's device memory.
use crate::device::memory_zero;
use crate::error::{call, Error, Result, Status};
use crate::{cstring, str_from, sys, Device, Memory, Table, Weights};
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::ptr::{self, NonNull};

mod sealed {
    pub trait Sealed {}
}

/// A plain element type whose bytes a tensor can hold: f32, f64, i32, u32,
/// i64, u64, i16, u16 (f16 and bf16 bits), i8, u8.
///
/// # Safety
/// Every bit pattern is a valid value and the type has no padding.
pub unsafe trait Element: Copy + Default + sealed::Sealed {}

macro_rules! element {
    ($($t:ty),*) => { $( impl sealed::Sealed for $t {} unsafe impl Element for $t {} )* };
}
element!(f32, f64, i32, u32, i64, u64, i16, u16, i8, u8);

fn bytes_of<T: Element>(s: &[T]) -> (*const c_void, usize) {
    (s.as_ptr() as *const c_void, std::mem::size_of_val(s))
}

/// One plan step, profiled (`kgrt_step_profile_t`).
#[derive(Clone, Debug, PartialEq)]
pub struct StepProfile {
    pub step: u32,
    /// The kernel's name, or the collective's ("all_reduce").
    pub kernel: String,
    /// False: skipped at these dims.
    pub launched: bool,
    pub workgroups: u32,
    /// Device time of the launch, median over the reps.
    pub us: f64,
    /// The bytes its buffer arguments span at these dims.
    pub bytes: u64,
}

/// A table loaded on a device; unloaded when dropped. It borrows the device
/// for `'d` and the table for `'t`.
pub struct Model<'d, 't> {
    raw: NonNull<sys::kgrt_model_t>,
    table: Table<'t>,
    _device: PhantomData<&'d Device>,
}

impl<'d, 't> Model<'d, 't> {
    /// # Safety
    /// `raw` is a loaded model of `table` on a device that lives for 'd.
    pub(crate) unsafe fn from_raw(
        raw: NonNull<sys::kgrt_model_t>,
        table: Table<'t>,
    ) -> Model<'d, 't> {
        Model {
            raw,
            table,
            _device: PhantomData,
        }
    }

    pub fn as_raw(&self) -> *mut sys::kgrt_model_t {
        self.raw.as_ptr()
    }

    pub fn table(&self) -> Table<'t> {
        self.table
    }

    /// The arch the model runs ("gfx1100").
    pub fn arch(&self) -> &str {
        // SAFETY: a string of the table, which outlives self.
        unsafe { str_from(sys::kgrt_model_arch(self.raw.as_ptr())) }
    }

    /// What the model holds on its device.
    pub fn memory(&self) -> Memory {
        let mut m = memory_zero();
        // SAFETY: valid model and out pointer.
        unsafe { sys::kgrt_model_held_memory(self.raw.as_ptr(), &mut m) };
        m.into()
    }

    /// Sets dim `sym`: 1 <= value <= its max.
    pub fn set_dim(&mut self, sym: &str, value: i64) -> Result<()> {
        let sym = cstring("dim", sym)?;
        // SAFETY: valid model and C string.
        call(|err| unsafe { sys::kgrt_model_set_dim(self.raw.as_ptr(), sym.as_ptr(), value, err) })
    }

    /// The current byte size of input, weight or output `name`.
    pub fn tensor_bytes(&self, name: &str) -> Result<usize> {
        let name = cstring("tensor", name)?;
        let mut bytes = 0usize;
        // SAFETY: valid model, C string and out pointer.
        call(|err| unsafe {
            sys::kgrt_model_tensor_bytes(self.raw.as_ptr(), name.as_ptr(), &mut bytes, err)
        })?;
        Ok(bytes)
    }

    /// Copies `data` into input `name` (its bytes must be the input's size).
    pub fn set_input<T: Element>(&mut self, name: &str, data: &[T]) -> Result<()> {
        let name = cstring("input", name)?;
        let (p, n) = bytes_of(data);
        // SAFETY: p points at n readable bytes.
        call(|err| unsafe {
            sys::kgrt_model_set_input(self.raw.as_ptr(), name.as_ptr(), p, n, err)
        })
    }

    /// Copies `data` into weight `name`.
    pub fn set_weight<T: Element>(&mut self, name: &str, data: &[T]) -> Result<()> {
        let name = cstring("weight", name)?;
        let (p, n) = bytes_of(data);
        // SAFETY: p points at n readable bytes.
        call(|err| unsafe {
            sys::kgrt_model_set_weight(self.raw.as_ptr(), name.as_ptr(), p, n, err)
        })
    }

    /// Binds every weight of the table from `weights` by name;
    /// `refuse_unused`: a file tensor no weight takes is an error.
    pub fn bind_weights(&mut self, weights: &Weights, refuse_unused: bool) -> Result<()> {
        let flags = if refuse_unused {
            sys::KGRT_BIND_REFUSE_UNUSED
        } else {
            0
        };
        // SAFETY: valid model and weights.
        call(|err| unsafe {
            sys::kgrt_model_bind_weights(self.raw.as_ptr(), weights.as_raw(), flags, err)
        })
    }

    /// Runs the launch plan.
    pub fn run(&mut self) -> Result<()> {
        // SAFETY: valid model.
        call(|err| unsafe { sys::kgrt_model_run(self.raw.as_ptr(), err) })
    }

    /// Copies output `name` into `out` (its bytes must be the output's size).
    pub fn get_output<T: Element>(&mut self, name: &str, out: &mut [T]) -> Result<()> {
        let name = cstring("output", name)?;
        let n = std::mem::size_of_val(out);
        let p = out.as_mut_ptr() as *mut c_void;
        // SAFETY: p points at n writable bytes, and any bytes are a valid T.
        call(|err| unsafe {
            sys::kgrt_model_get_output(self.raw.as_ptr(), name.as_ptr(), p, n, err)
        })
    }

    /// Output `name` as a new vector of T (its size a whole number of T).
    pub fn output<T: Element>(&mut self, name: &str) -> Result<Vec<T>> {
        let bytes = self.tensor_bytes(name)?;
        let size = std::mem::size_of::<T>();
        if bytes % size != 0 {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "output {} is {} bytes, not a whole number of {}-byte elements",
                    name, bytes, size
                ),
            ));
        }
        let mut v = vec![T::default(); bytes / size];
        self.get_output(name, &mut v)?;
        Ok(v)
    }

    /// Zeroes the state (KV caches) again: a new sequence.
    pub fn reset_state(&mut self) -> Result<()> {
        // SAFETY: valid model.
        call(|err| unsafe { sys::kgrt_model_reset_state(self.raw.as_ptr(), err) })
    }

    /// Graph replay on (true) or off.
    pub fn set_replay(&mut self, replay: bool) -> Result<()> {
        // SAFETY: valid model.
        call(|err| unsafe { sys::kgrt_model_set_replay(self.raw.as_ptr(), replay as i32, err) })
    }

    pub fn replay(&self) -> bool {
        // SAFETY: valid model.
        unsafe { sys::kgrt_model_replay(self.raw.as_ptr()) != 0 }
    }

    /// The device loop: between two steps of run_steps, output `output` is
    /// copied into input `input` on the device.
    pub fn link(&mut self, output: &str, input: &str) -> Result<()> {
        let o = cstring("output", output)?;
        let i = cstring("input", input)?;
        // SAFETY: valid model and C strings.
        call(|err| unsafe { sys::kgrt_model_link(self.raw.as_ptr(), o.as_ptr(), i.as_ptr(), err) })
    }

    /// Between two steps of run_steps, `delta` is added to dim `sym`.
    pub fn step_dim(&mut self, sym: &str, delta: i64) -> Result<()> {
        let s = cstring("dim", sym)?;
        // SAFETY: valid model and C string.
        call(|err| unsafe { sys::kgrt_model_step_dim(self.raw.as_ptr(), s.as_ptr(), delta, err) })
    }

    pub fn clear_links(&mut self) {
        // SAFETY: valid model.
        unsafe { sys::kgrt_model_clear_links(self.raw.as_ptr()) }
    }

    /// Runs `steps` steps with the links and dim steps applied on the device
    /// between them, reading nothing back.
    pub fn run_steps(&mut self, steps: u32) -> Result<()> {
        // SAFETY: valid model; no collection.
        call(|err| unsafe {
            sys::kgrt_model_run_steps(
                self.raw.as_ptr(),
                steps,
                ptr::null(),
                ptr::null_mut(),
                0,
                err,
            )
        })
    }

    /// The same, collecting output `collect` of every step into `out` (steps
    /// times its size), copied back once at the end.
    pub fn run_steps_collect<T: Element>(
        &mut self,
        steps: u32,
        collect: &str,
        out: &mut [T],
    ) -> Result<()> {
        let c = cstring("output", collect)?;
        let n = std::mem::size_of_val(out);
        let p = out.as_mut_ptr() as *mut c_void;
        // SAFETY: p points at n writable bytes, and any bytes are a valid T.
        call(|err| unsafe {
            sys::kgrt_model_run_steps(self.raw.as_ptr(), steps, c.as_ptr(), p, n, err)
        })
    }

    /// Runs the plan `reps` times launch by launch and times every step.
    pub fn profile(&mut self, reps: u32) -> Result<Vec<StepProfile>> {
        let mut count = 0u32;
        // capacity 0: kgrt says how many steps the plan has
        // SAFETY: valid model and out pointer; nothing is written with capacity 0.
        let first = call(|err| unsafe {
            sys::kgrt_model_profile(self.raw.as_ptr(), reps, ptr::null_mut(), 0, &mut count, err)
        });
        match first {
            Err(e) if e.status == Status::OutOfRange && count > 0 => {}
            Err(e) => return Err(e),
            Ok(()) => return Ok(Vec::new()),
        }
        let blank = sys::kgrt_step_profile_t {
            step: 0,
            kernel: ptr::null(),
            launched: 0,
            workgroups: 0,
            us: 0.0,
            bytes: 0,
        };
        let mut v = vec![blank; count as usize];
        // SAFETY: v has room for count entries.
        call(|err| unsafe {
            sys::kgrt_model_profile(
                self.raw.as_ptr(),
                reps,
                v.as_mut_ptr(),
                count,
                &mut count,
                err,
            )
        })?;
        Ok(v.iter()
            .take(count as usize)
            .map(|p| StepProfile {
                step: p.step,
                // SAFETY: the table's strings (or kgrt's static ones).
                kernel: unsafe { str_from(p.kernel) }.to_string(),
                launched: p.launched != 0,
                workgroups: p.workgroups,
                us: p.us,
                bytes: p.bytes,
            })
            .collect())
    }

    /// The median device time of one run in microseconds, over `reps` runs
    /// after `warmup`.
    pub fn time(&mut self, warmup: u32, reps: u32) -> Result<f64> {
        let mut us = 0f64;
        // SAFETY: valid model and out pointer.
        call(|err| unsafe { sys::kgrt_model_time(self.raw.as_ptr(), warmup, reps, &mut us, err) })?;
        Ok(us)
    }

    /// Input or output `name` lives at `ptr`, `bytes` of the caller's
    /// memory on the model's device, from the next run on (no copy).
    ///
    /// # Safety
    /// `ptr` is device memory of the model's device (host memory on the
    /// sim) of at least `bytes`, valid and not used by anything else while a
    /// run may read or write it, until it is unbound or the model dropped.
    pub unsafe fn bind_device(&mut self, name: &str, ptr: *mut c_void, bytes: usize) -> Result<()> {
        let n = cstring("tensor", name)?;
        call(|err| sys::kgrt_model_bind_device(self.raw.as_ptr(), n.as_ptr(), ptr, bytes, err))
    }

    /// Puts input or output `name` back in the model's own buffer.
    pub fn unbind_device(&mut self, name: &str) -> Result<()> {
        let n = cstring("tensor", name)?;
        // SAFETY: valid model and C string.
        call(|err| unsafe { sys::kgrt_model_unbind_device(self.raw.as_ptr(), n.as_ptr(), err) })
    }

    /// Waits for every run queued on the model.
    pub fn wait(&mut self) -> Result<()> {
        // SAFETY: valid model.
        call(|err| unsafe { sys::kgrt_model_wait(self.raw.as_ptr(), err) })
    }
}

impl Drop for Model<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: the model is not used after this.
        unsafe { sys::kgrt_model_unload(self.raw.as_ptr()) }
    }
}

impl std::fmt::Debug for Model<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("table", &self.table.name())
            .field("arch", &self.arch())
            .finish()
    }
}
